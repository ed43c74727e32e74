import { describe, expect, it } from "vitest";
import { answeredFromListing, callStatus, type CallOutcome } from "./call-status";

const call = (answered: boolean | null, hangupCause: string | null, q850Cause: number | null = null): CallOutcome => ({
  answered,
  hangupCause,
  q850Cause,
});

describe("callStatus", () => {
  it("calls an answered call Answered whatever cause ended it", () => {
    expect(callStatus(call(true, "NORMAL_CLEARING", 16))).toBe("answered");
    expect(callStatus(call(true, "RECOVERY_ON_TIMER_EXPIRE", 102))).toBe("answered");
    expect(callStatus(call(true, null))).toBe("answered");
  });

  it("reads unanswered calls from the cause name, in any case", () => {
    expect(callStatus(call(false, "USER_BUSY", 17))).toBe("busy");
    expect(callStatus(call(false, "call_rejected", 21))).toBe("busy");
    expect(callStatus(call(false, "NO_ANSWER", 19))).toBe("no_answer");
    expect(callStatus(call(false, "NO_USER_RESPONSE", 18))).toBe("no_answer");
    expect(callStatus(call(false, "ORIGINATOR_CANCEL", 487))).toBe("cancelled");
    expect(callStatus(call(false, "NORMAL_CLEARING", 16))).toBe("cancelled");
    expect(callStatus(call(false, "UNALLOCATED_NUMBER", 1))).toBe("failed");
    expect(callStatus(call(false, "NORMAL_TEMPORARY_FAILURE", 41))).toBe("failed");
    expect(callStatus(call(false, "NORMAL_CIRCUIT_CONGESTION", 34))).toBe("failed");
  });

  it("falls back to the Q.850 code when the name is missing or unknown, and to Failed without either", () => {
    expect(callStatus(call(false, null, 17))).toBe("busy");
    expect(callStatus(call(false, "SIP_486", 17))).toBe("busy");
    expect(callStatus(call(false, "whatever", 19))).toBe("no_answer");
    expect(callStatus(call(false, null, null))).toBe("failed");
    expect(callStatus(call(false, "SOMETHING_NEW", null))).toBe("failed");
  });

  it("takes a normal clearing of a call not known to be unanswered as a conversation", () => {
    expect(callStatus(call(null, "NORMAL_CLEARING", 16))).toBe("answered");
    expect(callStatus(call(null, null, 16))).toBe("answered");
    expect(callStatus(call(null, "USER_BUSY", 17))).toBe("busy");
    expect(callStatus(call(null, "ORIGINATOR_CANCEL", 487))).toBe("cancelled");
  });
});

describe("answeredFromListing", () => {
  it("knows from billed seconds, or from a rated call's lack of them; an unrated call's are unknown", () => {
    expect(answeredFromListing({ billDuration: 36, rated: true })).toBe(true);
    expect(answeredFromListing({ billDuration: 0, rated: true })).toBe(false);
    expect(answeredFromListing({ billDuration: 0, rated: false })).toBeNull();
  });
});
