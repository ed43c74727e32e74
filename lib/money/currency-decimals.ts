/** How many decimals a currency's amounts have (USD 2, JPY 0, BHD 3), as Intl's ISO 4217 data knows it. */
export function currencyDecimals(currency: string): number {
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().minimumFractionDigits ?? 2;
}
