/**
 * Money and rates are integer micro-units: 1 unit = 1_000_000 micros, held in bigint.
 * Floats never enter the domain; formatting happens only at the edge.
 */
export const MICROS_PER_UNIT = 1_000_000n;

/**
 * The largest amount a request may bring and the largest balance, either way: 10^12 units, 10^18 micros
 * (docs/contract.md §1). Twice it still fits a bigint (9.2 * 10^18), so a bounded balance plus a bounded amount never
 * overflows before it is checked: the database refused such a sum (a 500 once).
 */
export const MONEY_BOUND_MICROS = 1_000_000_000_000n * MICROS_PER_UNIT;

/** Whether an amount (or a balance) lies within MONEY_BOUND_MICROS either way. */
export function isBoundedAmount(micros: bigint): boolean {
  return micros >= -MONEY_BOUND_MICROS && micros <= MONEY_BOUND_MICROS;
}

/** What an amount past the bound is told (422 errors[].message). */
export const MONEY_BOUND_MESSAGE = `must lie between -${formatMicros(MONEY_BOUND_MICROS)} and ${formatMicros(MONEY_BOUND_MICROS)}`;

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

/** Parses "12.345678", "-0.5", "7" into micros. Rejects more than 6 decimals instead of rounding silently. */
export function parseMicros(input: string | number): bigint {
  const text = typeof input === "number" ? numberToPlainString(input) : input.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`"${input}" is not a decimal amount`);
  const [, sign, whole, frac = ""] = m;
  if (frac.length > 6) throw new RangeError(`"${input}" has more than 6 decimals`);
  const value = BigInt(whole) * MICROS_PER_UNIT + BigInt(frac.padEnd(6, "0"));
  return sign === "-" ? -value : value;
}

function numberToPlainString(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`${n} is not a finite amount`);
  // toPrecision avoids exponent notation for the magnitudes money takes; trailing zeros are harmless.
  const s = String(n);
  return s.includes("e") ? n.toFixed(6) : s;
}

/** Exact decimal text of an amount, e.g. 1234500n -> "1.2345". */
export function formatMicros(micros: bigint, minDecimals = 0): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS_PER_UNIT;
  let frac = (abs % MICROS_PER_UNIT).toString().padStart(6, "0").replace(/0+$/, "");
  if (frac.length < minDecimals) frac = frac.padEnd(minDecimals, "0");
  return `${negative ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/**
 * The JSON number for an amount. Exact for amounts up to 15 significant digits (|x| < 10^9 units
 * with 6 decimals): the double nearest a decimal of <= 15 digits prints back as that decimal.
 */
export function microsToNumber(micros: bigint): number {
  return Number(formatMicros(micros));
}

/** round-half-up(numerator / denominator) for non-negative numerator, positive denominator. */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError("denominator must be positive");
  if (numerator >= 0n) return (numerator * 2n + denominator) / (denominator * 2n);
  return -((-numerator * 2n + denominator) / (denominator * 2n));
}
