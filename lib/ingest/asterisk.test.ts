import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  asteriskToNative,
  channelPeer,
  legUuid,
  lineHashUuid,
  localTimeReadings,
  localTimeToIso,
  resolveCallTimes,
  splitCsvRecord,
} from "./asterisk";
import { nativeCdrSchema } from "./schemas";

const lines = fs
  .readFileSync(path.join(__dirname, "fixtures", "Master.csv"), "utf8")
  .trimEnd()
  .split("\n");
const legLines = fs
  .readFileSync(path.join(__dirname, "fixtures", "Master-legs.csv"), "utf8")
  .trimEnd()
  .split("\n");

function mapLine(line: string, timeZone = "Europe/Berlin") {
  const fields = splitCsvRecord(line);
  if (!fields) throw new Error("unterminated record");
  return nativeCdrSchema.parse(asteriskToNative(fields, line, { timeZone }));
}

describe("CSV records", () => {
  it("splits quoted fields with doubled quotes and commas", () => {
    expect(splitCsvRecord('"a","""Smith, John"" <1>",12,"",x')).toEqual(["a", '"Smith, John" <1>', "12", "", "x"]);
    expect(splitCsvRecord(lines[3])?.[4]).toBe('"O\'Brien ""Ops""" <1003>');
  });

  it("reports an open quote as an unfinished record", () => {
    expect(splitCsvRecord('"a","multi')).toBeNull();
    expect(splitCsvRecord('"a","multi\nline"')).toEqual(["a", "multi\nline"]);
  });
});

describe("local times", () => {
  it("converts a wall-clock time in a zone, across DST", () => {
    expect(localTimeToIso("2025-01-02 10:15:00", "Europe/Berlin", "start")).toBe("2025-01-02T09:15:00.000Z");
    expect(localTimeToIso("2025-07-01 14:00:00", "Europe/Berlin", "start")).toBe("2025-07-01T12:00:00.000Z");
    expect(localTimeToIso("2025-03-09 01:30:00", "America/New_York", "start")).toBe("2025-03-09T06:30:00.000Z");
    expect(localTimeToIso("2025-07-01 14:00:00", "UTC", "start")).toBe("2025-07-01T14:00:00.000Z");
    // the repeated hour of the autumn change resolves to the first instant; the skipped spring hour moves forward
    expect(localTimeToIso("2025-03-30 02:30:00", "Europe/Berlin", "start")).toBe("2025-03-30T01:30:00.000Z");
    expect(localTimeToIso("2025-10-26 02:30:00", "Europe/Berlin", "start")).toBe("2025-10-26T00:30:00.000Z");
  });

  it("names the field of a malformed or impossible time", () => {
    expect(() => localTimeToIso("02/01/2025 10:00", "UTC", "start (column 10)")).toThrow("start (column 10)");
    expect(() => localTimeToIso("2025-02-30 10:00:00", "UTC", "end (column 12)")).toThrow("end (column 12)");
  });
});

describe("a call across a DST change (Europe/Berlin)", () => {
  /** The fixture's first record (an answered call) with other times and duration/billsec columns. */
  function call(start: string, answer: string, end: string, duration: number | "", billsec: number | "") {
    const fields = splitCsvRecord(lines[0]) ?? [];
    fields.splice(9, 5, start, answer, end, String(duration), String(billsec));
    const cdr = nativeCdrSchema.parse(asteriskToNative(fields, lines[0], { timeZone: "Europe/Berlin" }));
    return [cdr.startTime, cdr.answerTime, cdr.endTime];
  }

  it("offers both readings of the repeated autumn hour and of the skipped spring hour, preferred first", () => {
    expect(
      localTimeReadings("2025-10-26 02:30:00", "Europe/Berlin", "start").map((t) => new Date(t).toISOString()),
    ).toEqual(["2025-10-26T00:30:00.000Z", "2025-10-26T01:30:00.000Z"]);
    expect(
      localTimeReadings("2025-03-30 02:30:00", "Europe/Berlin", "start").map((t) => new Date(t).toISOString()),
    ).toEqual(["2025-03-30T01:30:00.000Z", "2025-03-30T00:30:00.000Z"]);
    expect(localTimeReadings("2025-10-26 03:30:00", "Europe/Berlin", "start")).toHaveLength(1);
    expect(localTimeReadings("2025-10-26 01:30:00", "Europe/Berlin", "start")).toHaveLength(1);
  });

  it("autumn: 02:50 (first pass) to 02:10 (second pass) with duration 1200 is a 20-minute call, not end before start", () => {
    expect(call("2025-10-26 02:50:00", "2025-10-26 02:50:06", "2025-10-26 02:10:00", 1200, 1194)).toEqual([
      "2025-10-26T00:50:00.000Z",
      "2025-10-26T00:50:06.000Z",
      "2025-10-26T01:10:00.000Z",
    ]);
    // Asterisk truncates duration and billsec; the written times (truncated too) may differ from them by a second.
    expect(call("2025-10-26 02:50:00", "2025-10-26 02:50:06", "2025-10-26 02:10:00", 1199, 1193)[2]).toBe(
      "2025-10-26T01:10:00.000Z",
    );
    // Without the columns the time order alone leaves that one reading.
    expect(call("2025-10-26 02:50:00", "", "2025-10-26 02:10:00", "", "")).toEqual([
      "2025-10-26T00:50:00.000Z",
      null,
      "2025-10-26T01:10:00.000Z",
    ]);
  });

  it("autumn: the duration column picks the pass of each time when both orders are possible", () => {
    // 02:10 to 02:40: 30 minutes in one pass, or 90 from the first pass to the second.
    expect(call("2025-10-26 02:10:00", "2025-10-26 02:10:05", "2025-10-26 02:40:00", 5400, 5395)).toEqual([
      "2025-10-26T00:10:00.000Z",
      "2025-10-26T00:10:05.000Z",
      "2025-10-26T01:40:00.000Z",
    ]);
    // 30 minutes fits both passes: not decisive, so the first pass (the earlier offset) for all three.
    expect(call("2025-10-26 02:10:00", "2025-10-26 02:10:05", "2025-10-26 02:40:00", 1800, 1795)).toEqual([
      "2025-10-26T00:10:00.000Z",
      "2025-10-26T00:10:05.000Z",
      "2025-10-26T00:40:00.000Z",
    ]);
  });

  it("autumn: billsec picks the pass of the answer when start and end are certain", () => {
    // 01:55 CEST (before the change) to 02:20 CET (second pass): 85 minutes; answered at 02:05 in either pass.
    expect(call("2025-10-26 01:55:00", "2025-10-26 02:05:00", "2025-10-26 02:20:00", 5100, 900)[1]).toBe(
      "2025-10-26T01:05:00.000Z",
    );
    expect(call("2025-10-26 01:55:00", "2025-10-26 02:05:00", "2025-10-26 02:20:00", 5100, 4500)[1]).toBe(
      "2025-10-26T00:05:00.000Z",
    );
  });

  it("spring: a time in the skipped hour is read with whichever offset agrees with the columns", () => {
    // 01:50 CET to 02:10, which no Berlin clock shows: the clock had not moved forward yet (01:10Z), 20 minutes.
    expect(call("2025-03-30 01:50:00", "2025-03-30 01:50:04", "2025-03-30 02:10:00", 1200, 1196)).toEqual([
      "2025-03-30T00:50:00.000Z",
      "2025-03-30T00:50:04.000Z",
      "2025-03-30T01:10:00.000Z",
    ]);
    // 02:50 to 03:10 CEST (01:10Z), 20 minutes: the start was read on a clock already moved forward (00:50Z).
    expect(call("2025-03-30 02:50:00", "2025-03-30 02:50:04", "2025-03-30 03:10:00", 1200, 1196)).toEqual([
      "2025-03-30T00:50:00.000Z",
      "2025-03-30T00:50:04.000Z",
      "2025-03-30T01:10:00.000Z",
    ]);
    // Undecided (both readings 20 minutes): the offset before the change, i.e. moved forward by the gap.
    expect(call("2025-03-30 02:10:00", "2025-03-30 02:10:04", "2025-03-30 02:30:00", 1200, 1196)).toEqual([
      "2025-03-30T01:10:00.000Z",
      "2025-03-30T01:10:04.000Z",
      "2025-03-30T01:30:00.000Z",
    ]);
  });

  it("keeps the preferred reading when no reading is in time order (the schema then refuses it)", () => {
    expect(resolveCallTimes([2_000], null, [1_000], { duration: 1, billsec: null })).toEqual({
      start: 2_000,
      answer: null,
      end: 1_000,
    });
  });
});

describe("Asterisk Master.csv mapping", () => {
  it("maps the fixture to the expected calls", () => {
    const cdrs = lines.map((l) => mapLine(l));
    expect(cdrs[0]).toMatchObject({
      uuid: legUuid("1735809300.1", splitCsvRecord(lines[0]) ?? []),
      direction: "outbound",
      from: "1001",
      to: "442071838750",
      startTime: "2025-01-02T09:15:00.000Z",
      answerTime: "2025-01-02T09:15:07.000Z",
      endTime: "2025-01-02T09:17:10.000Z",
      hangupCause: "NORMAL_CLEARING",
      q850Cause: 16,
      accountcode: "ACME-001",
      gateway: "carrier_a",
    });
    expect(cdrs[0].uuid).toMatch(/^1735809300\.1-[0-9a-f]{12}$/);
    expect(cdrs[1]).toMatchObject({ answerTime: null, hangupCause: "NO_ANSWER", q850Cause: 19, gateway: "carrier_b" });
    expect(cdrs[2]).toMatchObject({ answerTime: null, hangupCause: "USER_BUSY", q850Cause: 17 });
    expect(cdrs[3]).toMatchObject({
      answerTime: null,
      hangupCause: "NORMAL_TEMPORARY_FAILURE",
      q850Cause: 41,
      gateway: null,
    });
    // no uniqueid column: a stable hash of the line
    expect(cdrs[4].uuid).toBe(lineHashUuid(lines[4]));
    expect(cdrs[4].uuid).toMatch(/^ast-[0-9a-f]{32}$/);
    expect(cdrs[5]).toMatchObject({ startTime: "2025-07-01T12:00:00.000Z", to: "8816312345678" });
  });

  it("gives each leg of one channel (a shared uniqueid) its own uuid, the same on every read", () => {
    const [first, second, other] = legLines.map((l) => mapLine(l, "UTC"));
    expect(first.uuid).not.toBe(second.uuid);
    expect(first.uuid.startsWith("1741079521.26-")).toBe(true);
    expect(second.uuid.startsWith("1741079521.26-")).toBe(true);
    expect(legLines.map((l) => mapLine(l, "UTC").uuid)).toEqual([first.uuid, second.uuid, other.uuid]);
    // the leg's identity, not the line's text: the time zone of the import does not change it
    expect(mapLine(legLines[1], "Europe/Berlin").uuid).toBe(second.uuid);
    expect(second).toMatchObject({
      accountcode: "ast_h323",
      gateway: "trunk_de2",
      answerTime: "2025-03-04T09:12:38.000Z",
    });
  });

  it("uses the sequence column of newcdrcolumns (peeraccount, linkedid, sequence) when present", () => {
    const fields = splitCsvRecord(legLines[0]) ?? [];
    const withSequence = [...fields, "", "1741079521.26", "41"];
    expect(asteriskToNative(withSequence, legLines[0]).uuid).toBe("1741079521.26-41");
    const next = [...(splitCsvRecord(legLines[1]) ?? []), "", "1741079521.26", "42"];
    expect(asteriskToNative(next, legLines[1]).uuid).toBe("1741079521.26-42");
  });

  it("takes the direction from the options", () => {
    const fields = splitCsvRecord(lines[0]) ?? [];
    expect(asteriskToNative(fields, lines[0], { direction: "inbound" })).toMatchObject({
      direction: "inbound",
      gateway: null,
    });
  });

  it("rejects a record with a wrong column count or disposition, naming it", () => {
    expect(() => asteriskToNative(["a", "b"], "a,b")).toThrow("columns");
    const fields = splitCsvRecord(lines[0]) ?? [];
    fields[14] = "MAYBE";
    expect(() => asteriskToNative(fields, lines[0])).toThrow("disposition");
  });

  it("finds the peer of a channel", () => {
    expect(channelPeer("PJSIP/carrier_a-00000002")).toBe("carrier_a");
    expect(channelPeer("SIP/my-trunk-0000a1f3")).toBe("my-trunk");
    expect(channelPeer("Local/100@default-00000001;2")).toBe("100@default");
    expect(channelPeer("garbage")).toBeNull();
  });
});
