import type { NativeCdrInput } from "./schemas";

// FreeSWITCH mod_json_cdr documents (switch_ivr_generate_json_cdr) mapped to our native CDR (docs/contract.md §5):
// channel variables are strings, URL-encoded unless the switch sets encode-values=false.

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A mod_json_cdr document is recognised by its `variables` object (docs/contract.md §5). */
export function isFreeswitchCdr(doc: unknown): boolean {
  return isObject(doc) && isObject(doc.variables);
}

/** Decodes a URL-encoded value; a value that is not valid percent-encoding is kept as it is. `+` stays `+` (E.164). */
function decodeValue(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The first caller profile of the call flow. Current FreeSWITCH writes `callflow` as an array;
 * releases before 1.6 repeated a `callflow` key (JSON.parse keeps one object), so accept both.
 */
function firstCallerProfile(doc: JsonObject): JsonObject | undefined {
  const flow = doc.callflow;
  const first = Array.isArray(flow) ? flow[0] : flow;
  return isObject(first) && isObject(first.caller_profile) ? first.caller_profile : undefined;
}

class FieldReader {
  constructor(
    private readonly variables: JsonObject,
    private readonly profile: JsonObject | undefined,
  ) {}

  variable(name: string): string | null {
    const v = this.variables[name];
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
    if (typeof v !== "string") return null;
    const decoded = decodeValue(v).trim();
    return decoded === "" ? null : decoded;
  }

  profileField(name: string): string | null {
    const v = this.profile?.[name];
    if (typeof v !== "string") return null;
    const decoded = decodeValue(v).trim();
    return decoded === "" ? null : decoded;
  }

  /** A whole, non-negative integer variable; null when absent; throws naming the field when malformed. */
  integer(name: string): bigint | null {
    const v = this.variable(name);
    if (v === null) return null;
    if (!/^\d{1,20}$/.test(v)) throw new Error(`variables.${name} must be a non-negative integer, got "${v}"`);
    return BigInt(v);
  }
}

/** Microseconds since the epoch to an ISO timestamp, truncated to the millisecond we store. */
function isoFromMicros(micros: bigint): string {
  const ms = Number(micros / 1000n);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new RangeError("timestamp out of range");
  return date.toISOString();
}

/**
 * A time variable, preferring the microsecond `<name>_uepoch` over the second `<name>_epoch`.
 * Returns null for 0 (FreeSWITCH's "never happened", e.g. answer_epoch of an unanswered call).
 */
function epochTime(reader: FieldReader, name: "start" | "answer" | "end"): string | null {
  const at = (variable: string, micros: bigint) => {
    try {
      return isoFromMicros(micros);
    } catch {
      throw new Error(`variables.${variable} is out of range`);
    }
  };
  const micros = reader.integer(`${name}_uepoch`);
  if (micros !== null && micros > 0n) return at(`${name}_uepoch`, micros);
  const seconds = reader.integer(`${name}_epoch`);
  if (seconds !== null && seconds > 0n) return at(`${name}_epoch`, seconds * 1_000_000n);
  return null;
}

/** Post-dial delay in seconds: progress_mediamsec, else progressmsec (0 means the event did not happen). */
function postDialDelay(reader: FieldReader): number | null {
  for (const name of ["progress_mediamsec", "progressmsec"]) {
    const ms = reader.integer(name);
    if (ms !== null && ms > 0n) return Number(ms) / 1000;
  }
  return null;
}

/**
 * The caller (A-number). On an outbound leg through a gateway the SIP From user is the gateway's login
 * (`FreeSWITCH` unless the gateway sets `from-user` or `caller-id-in-from`), so an outbound leg takes the number
 * the switch presented: `origination_caller_id_number`, then the caller profile's `ani`, then its
 * `caller_id_number` (ani first: after answer an originated leg's caller id is flipped to the callee,
 * `channel_cid_flipped`). An inbound leg's From user is the caller itself.
 */
function callerNumber(r: FieldReader, direction: "inbound" | "outbound"): string | null {
  const fromUser = r.variable("sip_from_user");
  const profile = r.profileField("ani") ?? r.profileField("caller_id_number");
  if (direction === "inbound") return fromUser ?? r.profileField("caller_id_number");
  return r.variable("origination_caller_id_number") ?? profile ?? fromUser;
}

function required<T>(value: T | null, field: string): T {
  if (value === null) throw new Error(`${field} is missing`);
  return value;
}

/**
 * Maps a mod_json_cdr document to a native CDR (not yet validated: the caller parses it with
 * nativeCdrSchema). Throws an Error naming the field when a required one is missing or malformed.
 */
export function freeswitchToNative(doc: unknown): NativeCdrInput {
  if (!isObject(doc) || !isObject(doc.variables))
    throw new Error("variables: a FreeSWITCH CDR needs a variables object");
  const profile = firstCallerProfile(doc);
  const r = new FieldReader(doc.variables, profile);
  const channelData = isObject(doc.channel_data) ? doc.channel_data : {};

  const directionText =
    (typeof channelData.direction === "string" ? channelData.direction.trim().toLowerCase() : null) ||
    r.variable("direction")?.toLowerCase() ||
    null;
  const direction = required(directionText, "channel_data.direction (or variables.direction)");
  if (direction !== "inbound" && direction !== "outbound") {
    throw new Error(`channel_data.direction must be inbound or outbound, got "${direction}"`);
  }

  const q850Text = r.variable("hangup_cause_q850");
  let q850Cause: number | null = null;
  if (q850Text !== null) {
    if (!/^\d{1,4}$/.test(q850Text))
      throw new Error(`variables.hangup_cause_q850 must be an integer, got "${q850Text}"`);
    // FreeSWITCH reports its own causes above Q.850's 0-127 (ORIGINATOR_CANCEL 487, MEDIA_TIMEOUT 604):
    // no Q.850 code then, the cause name still says what happened, and the call is not lost.
    const code = Number(q850Text);
    q850Cause = code <= 127 ? code : null;
  }

  return {
    uuid: required(r.variable("uuid"), "variables.uuid"),
    direction,
    from: required(
      callerNumber(r, direction),
      "variables.sip_from_user (or callflow[0].caller_profile.caller_id_number)",
    ),
    to: required(
      r.variable("sip_req_user") ?? r.profileField("destination_number"),
      "variables.sip_req_user (or callflow[0].caller_profile.destination_number)",
    ),
    startTime: required(epochTime(r, "start"), "variables.start_epoch"),
    answerTime: epochTime(r, "answer"),
    endTime: required(epochTime(r, "end"), "variables.end_epoch"),
    hangupCause: r.variable("hangup_cause"),
    q850Cause,
    pdd: postDialDelay(r),
    readCodec: r.variable("read_codec"),
    writeCodec: r.variable("write_codec"),
    recordingUrl: r.variable("recording_url") ?? r.variable("record_path"),
    accountcode: r.variable("accountcode"),
    networkAddr: r.profileField("network_addr") ?? r.variable("sip_network_ip"),
    billingGroupId: r.variable("billing_group_id"),
    supplierId: r.variable("supplier_id"),
    gateway: r.variable("sip_gateway_name"),
  };
}
