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
  return numberFormat(`money:${currency}`, { style: "currency", currency, minimumFractionDigits: 2, maximumFractionDigits: 6 }, locale).format(
    formatMicros(micros),
  );
}

/** A per-minute rate: "$0.0120/min". */
export function formatRate(micros: bigint, currency: string, locale?: string): string {
  return `${formatMoney(micros, currency, locale)}/min`;
}

/** A plain integer with grouping: "12,345". */
export function formatCount(n: number, locale?: string): string {
  return numberFormat("count", { maximumFractionDigits: 0 }, locale).format(String(n));
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

/** An ISO instant in the viewer's time zone (the browser's, unless one is given). */
export function formatDateTime(iso: string, options: { locale?: string; timeZone?: string } = {}): string {
  const key = `${options.locale ?? ""}|${options.timeZone ?? ""}`;
  let f = dateTimeFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(options.locale, {
      year: "numeric",
      month: "short",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZone: options.timeZone,
    });
    dateTimeFormats.set(key, f);
  }
  return f.format(new Date(iso));
}

const compactFormats = new Map<string, Intl.DateTimeFormat>();

/** "2026-11-21 06:25:13" in the viewer's zone: compact and sortable, for dense tables. */
export function formatDateTimeCompact(iso: string, options: { timeZone?: string } = {}): string {
  const key = options.timeZone ?? "";
  let f = compactFormats.get(key);
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
    compactFormats.set(key, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(iso))) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}
