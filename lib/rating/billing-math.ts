// Pure billing arithmetic (docs/contract.md §1). No node imports: the portal's rate calculator runs
// these in the browser, so the price a customer previews is the price the switch is charged.
import { priceBilledSeconds, type CallCharge, type RateFees } from "@/lib/money/charge";
import type { Increment } from "./schemas";

const MICROS_PER_SECOND = 1_000_000;

/**
 * Billable seconds of a call answered for `answered` whole seconds:
 * 0 when unanswered, the minimum for short calls, then whole intervals.
 */
export function billableSeconds(answered: number, increment: Increment): number {
  if (!Number.isInteger(answered)) throw new RangeError("answered seconds must be an integer");
  if (!Number.isInteger(increment.min) || increment.min < 0)
    throw new RangeError("increment minimum must be a non-negative integer");
  if (!Number.isInteger(increment.interval) || increment.interval < 1)
    throw new RangeError("increment interval must be a positive integer");
  if (answered <= 0) return 0;
  if (answered <= increment.min) return increment.min;
  return increment.min + Math.ceil((answered - increment.min) / increment.interval) * increment.interval;
}

const ISO_PARTS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * An ISO 8601 timestamp as integer microseconds since the epoch, keeping sub-millisecond digits
 * (FreeSWITCH reports microseconds) that Date.parse would drop. Exact as a JS number until year 2255.
 */
export function isoToEpochMicros(iso: string): number {
  const m = ISO_PARTS.exec(iso.trim());
  if (!m) throw new RangeError(`"${iso}" is not an ISO 8601 timestamp with a zone`);
  const [, base, fraction = "", zone] = m;
  const zoneText = /^[+-]\d{2}$/.test(zone)
    ? `${zone}:00`
    : zone.length === 5
      ? `${zone.slice(0, 3)}:${zone.slice(3)}`
      : zone;
  const wholeMs = Date.parse(`${base}${zoneText.toUpperCase()}`);
  if (Number.isNaN(wholeMs)) throw new RangeError(`"${iso}" is not a valid timestamp`);
  const micros = Number(fraction.slice(0, 6).padEnd(6, "0"));
  return wholeMs * 1000 + micros;
}

function toEpochMicros(t: string | Date | number): number {
  if (typeof t === "number") return t;
  if (t instanceof Date) return t.getTime() * 1000;
  return isoToEpochMicros(t);
}

/** Whole seconds from `from` to `to`, rounded up; negative spans count as 0. Numbers are epoch microseconds. */
export function elapsedSeconds(from: string | Date | number, to: string | Date | number): number {
  const span = toEpochMicros(to) - toEpochMicros(from);
  if (span <= 0) return 0;
  return Math.ceil(span / MICROS_PER_SECOND);
}

/** Answered seconds (`endTime - answerTime`, whole, rounded up); 0 when the call was not answered. */
export function answeredSeconds(answerTime: string | Date | number | null, endTime: string | Date | number): number {
  if (answerTime === null) return 0;
  return elapsedSeconds(answerTime, endTime);
}

/**
 * Billable seconds and price of one side (sell or buy) of a call. A call with 0 billable seconds
 * (unanswered) costs 0: no connect fee, no minimum. Otherwise
 * price = max(minCharge, connectFee + round-half-up(rate * billableSeconds / 60)). The connect fee is
 * whole micros, so this is also round-half-up(connectFee + rate * billableSeconds / 60): one rounding step.
 */
export function priceCall(
  rateMicrosPerMinute: bigint,
  increment: Increment,
  answered: number,
  fees: RateFees = {},
): CallCharge {
  return priceBilledSeconds(rateMicrosPerMinute, billableSeconds(answered, increment), fees);
}
