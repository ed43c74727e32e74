import { createHash } from "node:crypto";
import { localTimeReadings } from "@/lib/time/zoned-time";
import type { NativeCdrInput } from "./schemas";

// Read here by Master.csv; kept where the portal can use it too (lib/time).
export { localTimeReadings, localTimeToIso } from "@/lib/time/zoned-time";

// Asterisk cdr_csv (Master.csv): no header; every field double-quoted except the integers, quotes
// inside a field doubled. Columns: accountcode, src, dst, dcontext, clid, channel, dstchannel,
// lastapp, lastdata, start, answer, end, duration, billsec, disposition, amaflags[, uniqueid[, userfield
// [, peeraccount, linkedid, sequence]]] (the last three with `newcdrcolumns = yes` in cdr.conf).

export const ASTERISK_COLUMNS = [
  "accountcode",
  "src",
  "dst",
  "dcontext",
  "clid",
  "channel",
  "dstchannel",
  "lastapp",
  "lastdata",
  "start",
  "answer",
  "end",
  "duration",
  "billsec",
  "disposition",
  "amaflags",
  "uniqueid",
  "userfield",
  "peeraccount",
  "linkedid",
  "sequence",
] as const;

/** Asterisk dispositions to a hangup cause and its Q.850 code. */
export const DISPOSITION_CAUSES: Record<string, { hangupCause: string; q850Cause: number }> = {
  ANSWERED: { hangupCause: "NORMAL_CLEARING", q850Cause: 16 },
  "NO ANSWER": { hangupCause: "NO_ANSWER", q850Cause: 19 },
  BUSY: { hangupCause: "USER_BUSY", q850Cause: 17 },
  FAILED: { hangupCause: "NORMAL_TEMPORARY_FAILURE", q850Cause: 41 },
  CONGESTION: { hangupCause: "NORMAL_CIRCUIT_CONGESTION", q850Cause: 34 },
};

/**
 * Splits one CSV record (RFC 4180 quoting: `"a ""b"""`). Returns null when a quoted field is still
 * open at the end, i.e. the record continues on the next physical line.
 */
export function splitCsvRecord(text: string): string[] | null {
  const fields: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  let atFieldStart = true;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
      i++;
      continue;
    }
    if (c === ",") {
      fields.push(field);
      field = "";
      atFieldStart = true;
      i++;
      continue;
    }
    if (c === "\r" && i === text.length - 1) break;
    field += c;
    atFieldStart = false;
    i++;
  }
  if (quoted) return null;
  fields.push(field);
  return fields;
}

/** Throws a RangeError for a time zone name the runtime does not know. */
export function assertTimeZone(timeZone: string): void {
  new Intl.DateTimeFormat("en-US", { timeZone });
}

/** Whole seconds a Master.csv column states, or null when it is empty or not a number. */
function secondsColumn(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}

/**
 * Start, answer and end of one record from their readings (localTimeReadings), across a DST change
 * (docs/contract.md §5): of the combinations in time order (start <= answer <= end), those that agree with
 * Asterisk's own `duration` (end - start) and `billsec` (end - answer) columns, within the one second their
 * truncation allows; when several agree (or the columns are absent or agree with none), the most preferred
 * reading of start, then answer, then end. So 02:50 (first pass) to 02:10 (second pass) on the autumn night,
 * duration 1200, is a 20-minute call. With no reading in time order the preferred one is kept (and refused).
 */
export function resolveCallTimes(
  start: number[],
  answer: number[] | null,
  end: number[],
  columns: { duration: number | null; billsec: number | null },
): { start: number; answer: number | null; end: number } {
  const combos: { start: number; answer: number | null; end: number }[] = [];
  for (const s of start)
    for (const a of answer ?? [null]) for (const e of end) combos.push({ start: s, answer: a, end: e });
  const ordered = combos.filter(
    (c) => c.start <= c.end && (c.answer === null || (c.start <= c.answer && c.answer <= c.end)),
  );
  const near = (ms: number, seconds: number | null) => seconds === null || Math.abs(ms / 1000 - seconds) <= 1;
  const agreeing = ordered.filter(
    (c) => near(c.end - c.start, columns.duration) && (c.answer === null || near(c.end - c.answer, columns.billsec)),
  );
  // combos is built in preference order (start, then answer, then end): the first of a list is the preferred one.
  return agreeing[0] ?? ordered[0] ?? combos[0];
}

export interface AsteriskOptions {
  /** IANA zone the switch wrote its local times in; default UTC. */
  timeZone?: string;
  /** cdr_csv does not say; default outbound (a customer's call out through the switch). */
  direction?: "inbound" | "outbound";
}

/** A stable identifier for a record that carries no uniqueid: the same line always maps to the same uuid. */
export function lineHashUuid(line: string): string {
  return `ast-${createHash("sha256").update(line).digest("hex").slice(0, 32)}`;
}

/**
 * The uuid of one leg. Asterisk writes one CDR per leg and the legs of one channel share its
 * uniqueid (a Dial that fails over, a transfer), so uniqueid alone would store the first leg and
 * refuse the others forever. `sequence` (newcdrcolumns) tells legs apart; without it, a short hash
 * of the leg's own identity: its channels, destination and start as written (not the whole line,
 * so re-reading it, in any time zone, gives the same uuid and a re-import stays a no-op).
 */
export function legUuid(uniqueid: string, fields: string[], sequence = ""): string {
  if (/^\d+$/.test(sequence)) return `${uniqueid}-${sequence}`;
  const col = (name: (typeof ASTERISK_COLUMNS)[number]) => (fields[ASTERISK_COLUMNS.indexOf(name)] ?? "").trim();
  const leg = JSON.stringify([col("channel"), col("dstchannel"), col("dst"), col("start")]);
  return `${uniqueid}-${createHash("sha256").update(leg).digest("hex").slice(0, 12)}`;
}

/** The peer of a channel name, e.g. "carrier_a" from "PJSIP/carrier_a-0000002f" or "SIP/carrier_a-0000002f". */
export function channelPeer(channel: string): string | null {
  const m = /^[A-Za-z0-9_]+\/(.+)-[0-9a-fA-F]+(?:;\d+)?$/.exec(channel.trim());
  return m ? m[1] : null;
}

/**
 * Maps one Master.csv record (already split) to a native CDR (validated later by the caller).
 * `rawLine` is the record's text, hashed into a uuid when the uniqueid column is absent.
 */
export function asteriskToNative(fields: string[], rawLine: string, options: AsteriskOptions = {}): NativeCdrInput {
  if (fields.length < 16 || fields.length > 21) {
    throw new Error(
      `expected 16 to 21 columns (accountcode ... amaflags[, uniqueid[, userfield[, peeraccount, linkedid, sequence]]]), got ${fields.length}`,
    );
  }
  const col = (name: (typeof ASTERISK_COLUMNS)[number]): string =>
    (fields[ASTERISK_COLUMNS.indexOf(name)] ?? "").trim();
  const timeZone = options.timeZone ?? "UTC";

  const src = col("src");
  const dst = col("dst");
  if (!src) throw new Error("src (column 2) is empty");
  if (!dst) throw new Error("dst (column 3) is empty");
  if (!col("start")) throw new Error("start (column 10) is empty");
  if (!col("end")) throw new Error("end (column 12) is empty");

  const disposition = col("disposition").toUpperCase();
  const cause = DISPOSITION_CAUSES[disposition];
  if (!cause) {
    throw new Error(
      `disposition (column 15) must be one of ${Object.keys(DISPOSITION_CAUSES).join(", ")}; got "${col("disposition")}"`,
    );
  }
  const answerText = col("answer");
  const uniqueid = col("uniqueid");
  const dstchannel = col("dstchannel");
  const accountcode = col("accountcode");
  const direction = options.direction ?? "outbound";
  const times = resolveCallTimes(
    localTimeReadings(col("start"), timeZone, "start (column 10)"),
    answerText ? localTimeReadings(answerText, timeZone, "answer (column 11)") : null,
    localTimeReadings(col("end"), timeZone, "end (column 12)"),
    { duration: secondsColumn(col("duration")), billsec: secondsColumn(col("billsec")) },
  );

  return {
    uuid: uniqueid ? legUuid(uniqueid, fields, col("sequence")) : lineHashUuid(rawLine),
    direction,
    from: src,
    to: dst,
    startTime: new Date(times.start).toISOString(),
    answerTime: times.answer === null ? null : new Date(times.answer).toISOString(),
    endTime: new Date(times.end).toISOString(),
    hangupCause: cause.hangupCause,
    q850Cause: cause.q850Cause,
    accountcode: accountcode || null,
    // The trunk of an outbound call is the peer of its destination channel: mapped like a gateway name.
    gateway: direction === "outbound" && dstchannel ? channelPeer(dstchannel) : null,
  };
}
