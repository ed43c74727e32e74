// Pure billing arithmetic (docs/contract.md §1). No node imports: the portal's rate calculator runs
// these in the browser, so the price a customer previews is the price the switch is charged.
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

/** round-half-up(rate * seconds / 60) to the micro: the one rounding step of a price. */
export function chargeMicros(rateMicrosPerMinute: bigint, seconds: number): bigint {
  if (rateMicrosPerMinute < 0n) throw new RangeError("a rate must not be negative");
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError("seconds must be a non-negative integer");
  const numerator = rateMicrosPerMinute * BigInt(seconds);
  return (numerator * 2n + 60n) / 120n;
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

/** Optional per-prefix fees of a rate, micro-units. */
export interface RateFees {
  /** Charged once per billed call, on top of the per-minute part. */
  connectFeeMicros?: bigint | null;
  /** The least a billed call costs, connect fee included. */
  minChargeMicros?: bigint | null;
}

export interface CallCharge {
  billableSeconds: number;
  /** round-half-up(rate * billableSeconds / 60): the per-minute part. */
  usageMicros: bigint;
  /** Connect fee charged (0 when the rate has none or nothing was billed). */
  connectFeeMicros: bigint;
  /** True when the minimum charge raised the price. */
  minChargeApplied: boolean;
  /** The price: max(minCharge, connectFee + usage); 0 when nothing was billed. */
  micros: bigint;
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

/** The price of `seconds` billable seconds (already through the increment), part by part: see priceCall. */
export function priceBilledSeconds(rateMicrosPerMinute: bigint, seconds: number, fees: RateFees = {}): CallCharge {
  const connectFee = fees.connectFeeMicros ?? 0n;
  const minCharge = fees.minChargeMicros ?? 0n;
  if (connectFee < 0n || minCharge < 0n) throw new RangeError("fees must not be negative");
  const usageMicros = chargeMicros(rateMicrosPerMinute, seconds);
  if (seconds === 0)
    return { billableSeconds: 0, usageMicros, connectFeeMicros: 0n, minChargeApplied: false, micros: 0n };
  const subtotal = connectFee + usageMicros;
  const minChargeApplied = subtotal < minCharge;
  return {
    billableSeconds: seconds,
    usageMicros,
    connectFeeMicros: connectFee,
    minChargeApplied,
    micros: minChargeApplied ? minCharge : subtotal,
  };
}
