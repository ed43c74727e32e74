import { formatMicros, parseMicros } from "@/lib/money/micros";

// Formatting at the edge of the portal. Amounts travel as exact decimals (the API's JSON numbers
// have at most 6 decimals, so their shortest text is exact) and are handed to Intl as strings:
// Intl.NumberFormat formats a decimal string exactly, without a float round trip.

type DecimalFormat = { format(value: string): string };
const numberFormats = new Map<string, DecimalFormat>();

function numberFormat(key: string, options: Intl.NumberFormatOptions, locale?: string): DecimalFormat {
  const cacheKey = `${locale ?? ""}|${key}`;
  let f = numberFormats.get(cacheKey);
  if (!f) {
    f = new Intl.NumberFormat(locale, options) as unknown as DecimalFormat;
    numberFormats.set(cacheKey, f);
  }
  return f;
}

/** An API amount (JSON number or decimal text) as exact micros. */
export function toMicros(value: number | string): bigint {
  return parseMicros(value);
}

/** "$1,234.50", "-€0.0123": at least 2 decimals, up to the 6 the amount may carry. */
export function formatMoney(micros: bigint, currency: string, locale?: string): string {
  return numberFormat(
    `money:${currency}`,
    { style: "currency", currency, minimumFractionDigits: 2, maximumFractionDigits: 6 },
    locale,
  ).format(formatMicros(micros));
}

/** How many decimals a currency's amounts have (USD 2, JPY 0, BHD 3), as Intl knows it. */
export function currencyDecimals(currency: string): number {
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().minimumFractionDigits ?? 2;
}

/** Decimals of a per-minute rate: always 6, the precision rates are kept in (docs/contract.md §1). */
export const RATE_DECIMALS = 6;

/**
 * A per-call amount (price, buy cost, margin, a fee): the currency's own decimals ("$0.00" for a free call,
 * "€1.20"), and more, up to 6, only where the exact amount has them ("$0.007585"): nothing is rounded away.
 */
export function formatPrice(micros: bigint, currency: string, locale?: string): string {
  const decimals = currencyDecimals(currency);
  return numberFormat(
    `price:${currency}`,
    { style: "currency", currency, minimumFractionDigits: decimals, maximumFractionDigits: 6 },
    locale,
  ).format(formatMicros(micros));
}

/**
 * How one column of per-call amounts reads (docs/contract.md §8): every amount with the same decimals, the most any
 * listed amount needs (at least its currency's, at most the 6 amounts are kept in), so "$0.00145", "$0.0199" and
 * "$0.00" line up as "$0.00145", "$0.01990", "$0.00000" and nothing is rounded away; and the ISO code beside each
 * amount ("USD 0.01990") when the rows span more than one currency, never a "$" beside a "€" with no word of it.
 */
export interface AmountColumn {
  decimals: number;
  byCode: boolean;
}

/** The fraction digits an exact amount needs, 0..6. */
function decimalsNeeded(micros: bigint): number {
  let fraction = (micros < 0n ? -micros : micros) % 1_000_000n;
  if (fraction === 0n) return 0;
  let decimals = 6;
  while (fraction % 10n === 0n) {
    fraction /= 10n;
    decimals--;
  }
  return decimals;
}

/** The column format of the amounts listed (null: not shown, such as an unrated call's price). */
export function amountColumn(cells: Iterable<{ value: number | string | null | undefined; currency: string }>) {
  const currencies = new Set<string>();
  let decimals = 0;
  for (const cell of cells) {
    if (cell.value === null || cell.value === undefined) continue;
    currencies.add(cell.currency);
    decimals = Math.max(decimals, decimalsNeeded(toMicros(cell.value)));
  }
  for (const currency of currencies) decimals = Math.max(decimals, currencyDecimals(currency));
  return { decimals: Math.min(6, decimals), byCode: currencies.size > 1 } satisfies AmountColumn;
}

/** A per-call amount as its column reads (amountColumn): "$0.01990", or "USD 0.01990" among other currencies. */
export function formatColumnAmount(micros: bigint, currency: string, column: AmountColumn, locale?: string): string {
  return numberFormat(
    `column:${currency}:${column.decimals}:${column.byCode}`,
    {
      style: "currency",
      currency,
      currencyDisplay: column.byCode ? "code" : "symbol",
      minimumFractionDigits: column.decimals,
      maximumFractionDigits: Math.max(column.decimals, 6),
    },
    locale,
  ).format(formatMicros(micros));
}

/**
 * A balance or a total in the currency's own minor units (USD 2, JPY 0, BHD 3), rounded half
 * away from zero from the exact decimal (Intl rounds the decimal string, not a float).
 */
export function formatAmount(micros: bigint, currency: string, locale?: string): string {
  return numberFormat(`amount:${currency}`, { style: "currency", currency }, locale).format(formatMicros(micros));
}

/** A per-minute rate with its 6 decimals: "$0.012000/min". */
export function formatRate(micros: bigint, currency: string, locale?: string): string {
  const text = numberFormat(
    `rate:${currency}`,
    { style: "currency", currency, minimumFractionDigits: RATE_DECIMALS, maximumFractionDigits: RATE_DECIMALS },
    locale,
  ).format(formatMicros(micros));
  return `${text}/min`;
}

/** A whole share in tenths of a percent ("12.5%"; "−3.0%"), from exact micros: no float money. */
export function formatPercent(part: bigint, whole: bigint, locale?: string): string | null {
  if (whole === 0n) return null;
  // Rounded half away from zero to a tenth of a percent.
  const scaled = (part * 2000n) / whole;
  const tenths = scaled >= 0n ? (scaled + 1n) / 2n : (scaled - 1n) / 2n;
  const abs = tenths < 0n ? -tenths : tenths;
  const text = `${tenths < 0n ? "-" : ""}${abs / 10n}.${abs % 10n}`;
  return `${numberFormat("percent", { minimumFractionDigits: 1, maximumFractionDigits: 1 }, locale).format(text)}%`;
}

/**
 * A phone number as E.164 ("+442071234567") when it is one: 8 to 15 digits that do not start with 0 (switches
 * store international numbers without the "+"). Anything else (an extension, a national number with its trunk
 * prefix, a SIP name) is shown as stored.
 */
export function formatPhoneNumber(number: string): string {
  if (/^\+\d{1,15}$/.test(number)) return number;
  return /^[1-9]\d{7,14}$/.test(number) ? `+${number}` : number;
}

/** A plain integer with grouping: "12,345". */
export function formatCount(n: number, locale?: string): string {
  return numberFormat("count", { maximumFractionDigits: 0 }, locale).format(String(n));
}

/** Billed seconds as minutes with one decimal, exactly (integer arithmetic): "1,234.5". */
export function formatMinutes(seconds: number, locale?: string): string {
  const tenths = Math.round((seconds * 10) / 60);
  return numberFormat("minutes", { minimumFractionDigits: 1, maximumFractionDigits: 1 }, locale).format(
    `${Math.trunc(tenths / 10)}.${tenths % 10}`,
  );
}

/** Seconds as "m:ss" or "h:mm:ss". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.trunc(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The portal's one date format, "2026-11-23 14:05:09": sortable, locale-neutral, in the given
 * IANA zone (the viewer's when absent). Pages name the zone next to it (timeZoneName).
 */
export function formatDateTime(iso: string, options: { timeZone?: string } = {}): string {
  const key = options.timeZone ?? "";
  let f = dateTimeFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZone: options.timeZone,
    });
    dateTimeFormats.set(key, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(iso))) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The IANA name of a zone ("America/New_York"); the viewer's own when none is given. */
export function timeZoneName(timeZone?: string): string {
  return timeZone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A short label of the zone at an instant ("EST", "UTC", "GMT+1"), for narrow column headers. */
export function shortTimeZoneName(timeZone?: string, at = new Date()): string {
  const part = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName");
  return part?.value ?? timeZoneName(timeZone);
}
