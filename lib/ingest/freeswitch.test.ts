import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freeswitchToNative, isFreeswitchCdr } from "./freeswitch";
import { nativeCdrSchema } from "./schemas";

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8")) as Record<string, unknown>;

describe("FreeSWITCH mod_json_cdr mapping", () => {
  it("recognises a document by its variables object", () => {
    expect(isFreeswitchCdr(fixture("freeswitch-answered.json"))).toBe(true);
    expect(isFreeswitchCdr({ uuid: "x", variables: "no" })).toBe(false);
    expect(isFreeswitchCdr([{ variables: {} }])).toBe(false);
    expect(isFreeswitchCdr(null)).toBe(false);
  });

  it("maps the answered gateway call (URL-encoded values) field for field", () => {
    const cdr = nativeCdrSchema.parse(freeswitchToNative(fixture("freeswitch-answered.json")));
    expect(cdr).toEqual({
      uuid: "0f7d2c9e-5a41-4b8e-9d36-2c1e8f4a7b90",
      direction: "outbound",
      from: "+12125550143",
      to: "442071838750",
      // *_uepoch wins over *_epoch, truncated to the millisecond
      startTime: "2025-01-01T10:00:00.123Z",
      answerTime: "2025-01-01T10:00:06.994Z",
      endTime: "2025-01-01T10:02:12.395Z",
      hangupCause: "NORMAL_CLEARING",
      q850Cause: 16,
      pdd: 2.34,
      readCodec: "PCMA",
      writeCodec: "PCMA",
      recordingUrl: "https://recordings.example.com/2025/01/01/0f7d2c9e-5a41-4b8e-9d36-2c1e8f4a7b90.wav",
      accountcode: "ACME-001",
      networkAddr: "198.51.100.20",
      billingGroupId: null,
      supplierId: null,
      gateway: "carrier_a",
    });
  });

  it("takes the caller of an outbound leg through a gateway, not the gateway's login in sip_from_user", () => {
    // FreeSWITCH 1.10 B-leg bridged to sofia/gateway/carrier_gw: the From user is the gateway's (`FreeSWITCH`).
    const doc = fixture("freeswitch-outbound-gateway.json");
    expect((doc.variables as Record<string, string>).sip_from_user).toBe("FreeSWITCH");
    const cdr = nativeCdrSchema.parse(freeswitchToNative(doc));
    expect(cdr).toMatchObject({
      uuid: "c41e8b27-5d3a-4f96-b0e2-7a9c1d6f4e58",
      direction: "outbound",
      from: "+493012345678",
      to: "4420794601234",
      startTime: "2025-06-03T14:20:05.204Z",
      answerTime: "2025-06-03T14:20:14.816Z",
      endTime: "2025-06-03T14:23:22.218Z",
      hangupCause: "NORMAL_CLEARING",
      q850Cause: 16,
      pdd: 2.015,
      accountcode: "ACME-001",
      networkAddr: "198.51.100.31",
      gateway: "carrier_gw",
    });
  });

  it("prefers origination_caller_id_number, then the profile's ani, then its caller_id_number on outbound legs", () => {
    const doc = fixture("freeswitch-outbound-gateway.json");
    const vars = doc.variables as Record<string, string>;
    const profile = (doc.callflow as { caller_profile: Record<string, string> }[])[0].caller_profile;
    // An originated leg flips its caller id to the callee after answer (channel_cid_flipped): ani stays the caller.
    profile.caller_id_number = "4420794601234";
    expect(freeswitchToNative(doc).from).toBe("+493012345678");
    vars.origination_caller_id_number = "%2B493012345600";
    expect(freeswitchToNative(doc).from).toBe("+493012345600");
    delete vars.origination_caller_id_number;
    profile.ani = "";
    expect(freeswitchToNative(doc).from).toBe("4420794601234");
    profile.caller_id_number = "";
    expect(freeswitchToNative(doc).from).toBe("FreeSWITCH"); // nothing better left
  });

  it("keeps the SIP From user as the caller of an inbound leg", () => {
    const doc = fixture("freeswitch-outbound-gateway.json");
    (doc.channel_data as Record<string, string>).direction = "inbound";
    const vars = doc.variables as Record<string, string>;
    vars.sip_from_user = "%2B4930555";
    expect(freeswitchToNative(doc).from).toBe("+4930555");
  });

  it("maps the unanswered call: answer_epoch 0 is null, pdd falls back to progressmsec", () => {
    const cdr = nativeCdrSchema.parse(freeswitchToNative(fixture("freeswitch-unanswered.json")));
    expect(cdr).toMatchObject({
      uuid: "5b2e9f13-7c04-4d6a-b1e8-93f0c2a7d415",
      direction: "outbound",
      from: "+12125550143",
      to: "4915112345678",
      startTime: "2025-01-01T11:00:00.500Z",
      answerTime: null,
      endTime: "2025-01-01T11:00:32.512Z",
      hangupCause: "NO_ANSWER",
      q850Cause: 19,
      pdd: 1.8,
      readCodec: null,
      recordingUrl: null,
      gateway: "carrier_b",
    });
  });

  it("falls back to epoch seconds, the caller profile and variables.direction", () => {
    const doc = {
      variables: {
        uuid: "u-1",
        direction: "inbound",
        start_epoch: "1735725600",
        answer_epoch: "1735725601",
        end_epoch: "1735725660",
        supplier_id: "sup_abc",
        billing_group_id: "bg_xyz",
        sip_network_ip: "192.0.2.1",
        record_path: "/var/lib/freeswitch/recordings/u-1.wav",
      },
      callflow: { caller_profile: { caller_id_number: "4420", destination_number: "12125550100" } },
    };
    expect(freeswitchToNative(doc)).toMatchObject({
      direction: "inbound",
      from: "4420",
      to: "12125550100",
      startTime: "2025-01-01T10:00:00.000Z",
      answerTime: "2025-01-01T10:00:01.000Z",
      endTime: "2025-01-01T10:01:00.000Z",
      supplierId: "sup_abc",
      billingGroupId: "bg_xyz",
      networkAddr: "192.0.2.1",
      recordingUrl: "/var/lib/freeswitch/recordings/u-1.wav",
      pdd: null,
    });
  });

  it("keeps FreeSWITCH's own causes beyond Q.850 (ORIGINATOR_CANCEL 487) without a Q.850 code", () => {
    const doc = fixture("freeswitch-unanswered.json");
    Object.assign(doc.variables as Record<string, string>, {
      hangup_cause: "ORIGINATOR_CANCEL",
      hangup_cause_q850: "487",
    });
    expect(nativeCdrSchema.parse(freeswitchToNative(doc))).toMatchObject({
      hangupCause: "ORIGINATOR_CANCEL",
      q850Cause: null,
    });
  });

  it("keeps a value that is not valid percent-encoding as it is", () => {
    const doc = fixture("freeswitch-answered.json");
    (doc.variables as Record<string, string>).accountcode = "100%";
    expect(freeswitchToNative(doc).accountcode).toBe("100%");
  });

  it.each([
    ["uuid", "variables.uuid"],
    ["end_uepoch", "variables.end_epoch"],
  ])("names the field when %s is missing", (variable, field) => {
    const doc = fixture("freeswitch-answered.json");
    const vars = doc.variables as Record<string, string>;
    delete vars[variable];
    if (variable === "end_uepoch") delete vars.end_epoch;
    expect(() => freeswitchToNative(doc)).toThrow(field);
  });

  it("names a malformed number", () => {
    const doc = fixture("freeswitch-answered.json");
    (doc.variables as Record<string, string>).start_uepoch = "yesterday";
    expect(() => freeswitchToNative(doc)).toThrow("variables.start_uepoch");
  });

  it("refuses a direction other than inbound/outbound", () => {
    const doc = fixture("freeswitch-answered.json");
    (doc.channel_data as Record<string, string>).direction = "sideways";
    expect(() => freeswitchToNative(doc)).toThrow("channel_data.direction");
  });
});
