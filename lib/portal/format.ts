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

/** Decimals of a call's price, buy cost and margin in every table: fixed, so columns line up, and 6 so nothing is rounded away. */
export const PRICE_DECIMALS = 6;

/** A per-call amount with fixed decimals ("$0.007585", "$1.200000"): exact, and aligned in a column. */
export function formatPrice(micros: bigint, currency: string, locale?: string): string {
  return numberFormat(
    `price:${currency}`,
    { style: "currency", currency, minimumFractionDigits: PRICE_DECIMALS, maximumFractionDigits: PRICE_DECIMALS },
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

/** A per-minute rate: "$0.0120/min". */
export function formatRate(micros: bigint, currency: string, locale?: string): string {
  return `${formatMoney(micros, currency, locale)}/min`;
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
