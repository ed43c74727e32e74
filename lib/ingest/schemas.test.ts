import { afterEach, describe, expect, it } from "vitest";
import { freeswitchToNative } from "./freeswitch";
import { toNativeCdr } from "./native-lines";
import { nativeCdrSchema } from "./schemas";

const base = {
  uuid: "schema-test-1",
  direction: "outbound",
  from: "4930123456",
  to: "442071234567",
  startTime: "2025-03-01T10:00:00Z",
  answerTime: "2025-03-01T10:00:05Z",
  endTime: "2025-03-01T10:01:06Z",
  billingGroupId: "bg_x",
};

const paramsOf = (input: Record<string, unknown>) => {
  const parsed = nativeCdrSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
};

const TEXT_FIELDS = [
  "uuid",
  "from",
  "to",
  "hangupCause",
  "readCodec",
  "writeCodec",
  "recordingUrl",
  "accountcode",
  "networkAddr",
  "billingGroupId",
  "supplierId",
  "gateway",
];

describe("native CDR text fields", () => {
  it.each(TEXT_FIELDS)("refuses a NUL or a lone surrogate in %s, naming the field", (field) => {
    expect(paramsOf({ ...base, [field]: "ab\u0000c" })).toEqual([field]);
    expect(paramsOf({ ...base, [field]: "ab\ud800c" })).toEqual([field]);
    expect(paramsOf({ ...base, [field]: "ab\udc00" })).toEqual([field]);
  });

  it("keeps proper astral characters (surrogate pairs) and ordinary text", () => {
    expect(paramsOf({ ...base, recordingUrl: "/rec/\u{1F4DE}.wav", hangupCause: "NORMAL_CLEARING" })).toEqual([]);
  });

  it("refuses the same in a FreeSWITCH document, after mapping", () => {
    const doc = {
      channel_data: { direction: "outbound" },
      variables: {
        uuid: "fs-1",
        sip_from_user: "1001",
        sip_req_user: "44%00123",
        start_epoch: "1740823200",
        end_epoch: "1740823260",
      },
    };
    expect(() => toNativeCdr(freeswitchToNative(doc), { billingGroupId: "bg_x" })).toThrow(/^to: /);
  });
});

describe("native CDR times", () => {
  afterEach(() => {
    delete process.env.MAX_CALL_SECONDS;
  });

  it("refuses a call longer than MAX_CALL_SECONDS (default 24 h) on endTime", () => {
    expect(paramsOf({ ...base, endTime: "2025-03-02T10:00:00Z" })).toEqual([]); // exactly 24 h
    expect(paramsOf({ ...base, endTime: "2025-03-02T10:00:01Z" })).toEqual(["endTime"]);
    // the 30-year call of the issue
    expect(paramsOf({ ...base, startTime: "1995-03-01T10:00:00Z", answerTime: "1995-03-01T10:00:05Z" })).toEqual([
      "endTime",
    ]);
    process.env.MAX_CALL_SECONDS = "3600";
    expect(paramsOf({ ...base, endTime: "2025-03-01T11:00:01Z" })).toEqual(["endTime"]);
    expect(paramsOf({ ...base, endTime: "2025-03-01T11:00:00Z" })).toEqual([]);
  });

  it("refuses timestamps outside 1970 .. now + 1 day, naming the field", () => {
    expect(
      paramsOf({ ...base, startTime: "0000-01-01T00:00:00Z", answerTime: null, endTime: "0000-01-01T00:01:00Z" }),
    ).toEqual(expect.arrayContaining(["startTime", "endTime"]));
    expect(
      paramsOf({ ...base, startTime: "1969-12-31T23:59:59Z", answerTime: null, endTime: "1970-01-01T00:00:10Z" }),
    ).toEqual(["startTime"]);
    const future = new Date(Date.now() + 2 * 86_400_000).toISOString();
    expect(paramsOf({ ...base, startTime: future, answerTime: null, endTime: future })).toEqual(
      expect.arrayContaining(["startTime", "endTime"]),
    );
    expect(
      paramsOf({
        ...base,
        startTime: "9999-12-31T23:00:00-05:00",
        answerTime: null,
        endTime: "9999-12-31T23:00:00-05:00",
      }),
    ).toContain("startTime");
  });
});

describe("FreeSWITCH times", () => {
  it("names the variable of an epoch no date can hold", () => {
    const doc = {
      channel_data: { direction: "outbound" },
      variables: {
        uuid: "fs-2",
        sip_from_user: "1001",
        sip_req_user: "44123",
        start_epoch: "1740823200",
        end_uepoch: "99999999999999999999",
      },
    };
    expect(() => freeswitchToNative(doc)).toThrow(/^variables\.end_uepoch is out of range/);
  });
});
