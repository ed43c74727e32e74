import { divRoundHalfUp, formatMicros, MICROS_PER_UNIT } from "./micros";

/** How many decimals a currency's amounts have (USD 2, JPY 0, BHD 3), as Intl's ISO 4217 data knows it. */
export function currencyDecimals(currency: string): number {
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().minimumFractionDigits ?? 2;
}

/** One minor unit of the currency in micros: USD 10 000, JPY 1 000 000, KWD 1 000. */
export function minorUnitMicros(currency: string): bigint {
  return MICROS_PER_UNIT / 10n ** BigInt(Math.min(6, currencyDecimals(currency)));
}

/** An amount rounded half-up (away from zero, so a credit mirrors a debit) to the currency's minor unit, in micros. */
export function roundToMinorUnit(micros: bigint, currency: string): bigint {
  const unit = minorUnitMicros(currency);
  return divRoundHalfUp(micros, unit) * unit;
}

/** A payable amount as plain text in the currency's minor unit, rounded half-up: "319.56" USD, "1235" JPY. */
export function formatMinorUnits(micros: bigint, currency: string): string {
  return formatMicros(roundToMinorUnit(micros, currency), currencyDecimals(currency));
}
