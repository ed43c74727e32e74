/**
 * The outcome of a call as people read it, derived from what the switch reported (docs/contract.md §8): an
 * answered call is Answered whatever cause ended it; otherwise the hangup cause (FreeSWITCH/SIP names, or the
 * Q.850 code when the name is missing or unknown) says whether the line was busy, nobody answered, the caller
 * gave up, or the call failed. The raw cause stays in the call's detail.
 */
export type CallStatus = "answered" | "busy" | "no_answer" | "cancelled" | "failed";

export const CALL_STATUS_LABEL: Record<CallStatus, string> = {
  answered: "Answered",
  busy: "Busy",
  no_answer: "No answer",
  cancelled: "Cancelled",
  failed: "Failed",
};

/** Causes by name (upper case): the callee declined or was busy, nobody picked up, the caller hung up first. */
const BY_NAME: Record<string, Exclude<CallStatus, "answered">> = {
  USER_BUSY: "busy",
  CALL_REJECTED: "busy",
  NO_ANSWER: "no_answer",
  NO_USER_RESPONSE: "no_answer",
  ALLOTTED_TIMEOUT: "no_answer",
  ORIGINATOR_CANCEL: "cancelled",
  LOSE_RACE: "cancelled",
  PICKED_OFF: "cancelled",
  // Unanswered and cleared normally: the caller hung up while it rang (Asterisk and some trunks report it so).
  NORMAL_CLEARING: "cancelled",
  // Asterisk dispositions, as some CDR exports write them.
  BUSY: "busy",
  "NO ANSWER": "no_answer",
  NOANSWER: "no_answer",
  CANCEL: "cancelled",
};

/** The same by Q.850 code, for causes without a known name. */
const BY_Q850: Record<number, Exclude<CallStatus, "answered">> = {
  16: "cancelled",
  17: "busy",
  18: "no_answer",
  19: "no_answer",
  21: "busy",
  31: "cancelled",
  487: "cancelled",
};

export interface CallOutcome {
  /** Whether the call was answered; null when not known (see answeredFromListing). */
  answered: boolean | null;
  hangupCause: string | null;
  q850Cause: number | null;
}

export function callStatus(call: CallOutcome): CallStatus {
  if (call.answered === true) return "answered";
  const name = call.hangupCause?.trim().toUpperCase();
  const byCause = name && Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
  const byCode =
    call.q850Cause !== null && Object.hasOwn(BY_Q850, call.q850Cause) ? BY_Q850[call.q850Cause] : undefined;
  const status = byCause ?? byCode;
  // Not known to be unanswered (an unrated call has no billed seconds to tell): a normal clearing was a conversation.
  if (call.answered === null && status === "cancelled" && isNormalClearing(call)) return "answered";
  return status ?? "failed";
}

function isNormalClearing(call: CallOutcome): boolean {
  const name = call.hangupCause?.trim().toUpperCase();
  return name ? name === "NORMAL_CLEARING" : call.q850Cause === 16;
}

/**
 * What a listed call tells about its answer (the list has no answerTime): billed seconds mean it was answered; a
 * rated call with none was not (an answered call bills at least the increment's minimum); an unrated call bills
 * nothing either way, so it is not known.
 */
export function answeredFromListing(call: { billDuration: number; rated: boolean }): boolean | null {
  if (call.billDuration > 0) return true;
  return call.rated ? false : null;
}
