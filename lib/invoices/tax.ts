import { minorUnitMicros } from "@/lib/money/currency-decimals";
import { divRoundHalfUp } from "@/lib/money/micros";

// Tax (docs/contract.md §10): a rate in parts per million (200000 = 20 %), exact; the tax of a document is computed on
// its subtotal (never per line) and rounded once, half-up (away from zero, so a credit's tax mirrors a debit's), to the
// currency's decimals. A note's tax is tax(new subtotal) - the tax already invoiced, so invoice + notes carry exactly
// the tax of the re-rated subtotal.

export const PPM = 1_000_000n;

/** The tax on `subtotalMicros` at `ratePpm`, rounded half-up to the currency's minor unit, in micros. */
export function taxMicros(subtotalMicros: bigint, ratePpm: number, currency: string): bigint {
  const unit = minorUnitMicros(currency);
  // subtotal * rate / 1e6 micros, in minor units: subtotal * rate / (1e6 * unit), rounded once.
  return divRoundHalfUp(subtotalMicros * BigInt(ratePpm), PPM * unit) * unit;
}

const PERCENT = /^(\d{1,3})(?:\.(\d{1,4}))?$/;

/** "20", "8.875", "0": a percentage with at most 4 decimals, 0-100, as parts per million. */
export function parseTaxRatePercent(text: string): number {
  const m = PERCENT.exec(text.trim());
  if (!m) throw new RangeError(`"${text}" is not a percentage with at most 4 decimals (e.g. 20 or 8.875)`);
  const ppm = Number(m[1]) * 10_000 + Number((m[2] ?? "").padEnd(4, "0"));
  if (ppm > 1_000_000) throw new RangeError(`"${text}" is more than 100 %`);
  return ppm;
}

/** Parts per million as a percentage's exact decimal text: 88750 -> "8.875". */
export function formatTaxRatePercent(ppm: number): string {
  const whole = Math.floor(ppm / 10_000);
  const frac = String(ppm % 10_000)
    .padStart(4, "0")
    .replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : String(whole);
}
