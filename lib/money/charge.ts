// The charge for billed seconds at a per-minute rate (docs/contract.md §1): integer micro-unit arithmetic with one
// rounding step, shared by rating (lib/rating/billing-math.ts), the call detail's price parts and the portal's rate
// calculator in the browser (no node imports).

/** round-half-up(rate * seconds / 60) to the micro: the one rounding step of a price. */
export function chargeMicros(rateMicrosPerMinute: bigint, seconds: number): bigint {
  if (rateMicrosPerMinute < 0n) throw new RangeError("a rate must not be negative");
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError("seconds must be a non-negative integer");
  const numerator = rateMicrosPerMinute * BigInt(seconds);
  return (numerator * 2n + 60n) / 120n;
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
 * The price of `seconds` billable seconds (already through the increment), part by part: see priceCall
 * (lib/rating/billing-math.ts).
 */
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
