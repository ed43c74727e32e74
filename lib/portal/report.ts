import { z } from "zod";
import { microsToNumber, parseMicros } from "@/lib/money/micros";
import { USAGE_GROUP_BY, type UsageGroupBy, type UsageReport } from "@/lib/usage/schemas";
import { zonedDayStart, zonedDays } from "@/lib/time/zoned-time";
import { monthOf } from "./period";

/** The Reports page's state as it lives in its URL. */
export interface ReportFilters {
  groupBy: UsageGroupBy;
  /** yyyy-mm-dd, inclusive, in the shown zone */
  from?: string;
  until?: string;
  direction?: "inbound" | "outbound";
  account?: string;
}

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const fields = {
  groupBy: z.enum(USAGE_GROUP_BY),
  from: day,
  until: day,
  direction: z.enum(["inbound", "outbound"]),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
} as const;

/**
 * The report's filters from its URL. A URL that names no range at all (neither `from` nor `until`) shows this
 * month, when `today` (yyyy-mm-dd in the shown zone) is known; `from=&until=` is every day, stated as all time.
 */
export function parseReportFilters(params: { get(name: string): string | null }, today?: string): ReportFilters {
  const out: Record<string, string> = {};
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const parsed = fields[key].safeParse(params.get(key));
    if (parsed.success) out[key] = parsed.data;
  }
  const filters = { groupBy: "day", ...out } as ReportFilters;
  if (today && params.get("from") === null && params.get("until") === null) return { ...filters, ...monthOf(today) };
  return filters;
}

/** The report URL's search string: the range is always written (empty for an open end), so it is kept as chosen. */
export function reportFiltersToSearch(filters: ReportFilters): string {
  const params = new URLSearchParams();
  if (filters.groupBy !== "day") params.set("groupBy", filters.groupBy);
  params.set("from", filters.from ?? "");
  params.set("until", filters.until ?? "");
  if (filters.direction) params.set("direction", filters.direction);
  if (filters.account) params.set("account", filters.account);
  return `?${params}`;
}

/**
 * GET /v1/usage query of a report: whole days of `timeZone` (an IANA name: the account's own, docs/contract.md
 * "Periods on screens"), and the day/month buckets cut in that zone too.
 */
export function reportToUsageQuery(filters: ReportFilters, timeZone: string): URLSearchParams {
  const q = new URLSearchParams({ groupBy: filters.groupBy, timeZone });
  if (filters.from) q.set("startTime[gte]", zonedDayStart(filters.from, timeZone).toISOString());
  if (filters.until) q.set("startTime[lte]", zonedDays(filters.until, filters.until, timeZone).lte.toISOString());
  if (filters.direction) q.set("direction", filters.direction);
  if (filters.account) q.set("account", filters.account);
  return q;
}

/** RFC 4180 quoting, formulas defused: the rule of lib/calls/export-csv (that module is server-only: it reads the database). */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export type ReportRow = UsageReport["rows"][number] & { buyCost?: number; margin?: number };

/** The report as CSV: exact amounts as the API gave them; cost columns only when the session may see them. */
export function reportCsv(rows: ReportRow[], groupBy: UsageGroupBy, canReadCost: boolean): string {
  const header = [
    groupBy,
    "label",
    "currency",
    "calls",
    "answeredCalls",
    "unratedCalls",
    "billedSeconds",
    "price",
    ...(canReadCost ? ["buyCost", "margin"] : []),
  ];
  const lines = rows.map((r) =>
    [
      r.key,
      r.label,
      r.currency,
      r.calls,
      r.answeredCalls,
      r.unratedCalls,
      r.billedSeconds,
      r.price,
      ...(canReadCost ? [r.buyCost, r.margin] : []),
    ]
      .map(csvField)
      .join(","),
  );
  return `${[header.join(","), ...lines].join("\r\n")}\r\n`;
}

/** Rows of several currencies as one group per currency (ascending by code): figures of different currencies are never compared. */
export function groupByCurrency<T extends { currency: string }>(items: T[]): { currency: string; items: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(item.currency);
    if (list) list.push(item);
    else groups.set(item.currency, [item]);
  }
  return [...groups.keys()].sort().map((currency) => ({ currency, items: groups.get(currency)! }));
}

const micros = (value: number | undefined | null) => (value === undefined || value === null ? 0n : parseMicros(value));

/** A destination as people name it: the rows of one currency whose prefixes share the rate card's description. */
export interface DestinationGroup {
  /** "Philippines fixed"; a prefix without a description is its own group, named by the prefix. */
  name: string;
  /** The key the report row shows and the drill-down opens by. */
  key: string;
  currency: string;
  prefixes: ReportRow[];
  calls: number;
  answeredCalls: number;
  unratedCalls: number;
  billedSeconds: number;
  price: number;
  buyCost?: number;
  margin?: number;
}

/** Name of a destination row: its description, else its prefix, else (no prefix matched) "Unrated". */
export function destinationName(row: { key: string | null; label: string | null }): string {
  if (row.key === null) return "Unrated (no rate matched)";
  return row.label?.trim() || row.key;
}

/**
 * Destination rows (one per prefix) grouped by name within each currency, the figures added exactly (micros):
 * "Philippines fixed" once, its prefixes kept for the drill-down. Cost figures are present when the rows have them.
 */
export function groupDestinationsByName(rows: ReportRow[]): DestinationGroup[] {
  const groups = new Map<string, { rows: ReportRow[]; name: string; currency: string }>();
  for (const row of rows) {
    const name = destinationName(row);
    const id = `${row.currency}|${name}`;
    const group = groups.get(id);
    if (group) group.rows.push(row);
    else groups.set(id, { rows: [row], name, currency: row.currency });
  }
  return [...groups.values()].map(({ rows: prefixes, name, currency }) => {
    const withCost = prefixes.some((r) => r.buyCost !== undefined);
    const sum = (f: (r: ReportRow) => number) => prefixes.reduce((n, r) => n + f(r), 0);
    const sumMicros = (f: (r: ReportRow) => number | undefined) => prefixes.reduce((n, r) => n + micros(f(r)), 0n);
    return {
      name,
      key: name,
      currency,
      prefixes,
      calls: sum((r) => r.calls),
      answeredCalls: sum((r) => r.answeredCalls),
      unratedCalls: sum((r) => r.unratedCalls),
      billedSeconds: sum((r) => r.billedSeconds),
      price: microsToNumber(sumMicros((r) => r.price)),
      ...(withCost
        ? {
            buyCost: microsToNumber(sumMicros((r) => r.buyCost)),
            margin: microsToNumber(sumMicros((r) => r.margin)),
          }
        : {}),
    };
  });
}

/**
 * A reseller's report figures (docs/contract.md "Reseller tiers", "Usage by tier"): its revenue on a row is what its
 * children paid it, buyCost + margin, exactly (micros), not the calls' price, which below a sub-reseller is what a
 * customer paid that sub-reseller. Its own calls (where it is the customer) bring no revenue. Rows or totals without
 * cost figures are returned as they are.
 */
export function asTierRevenue<T extends { price: number; buyCost?: number; margin?: number }>(row: T): T {
  if (row.buyCost === undefined || row.margin === undefined) return row;
  return { ...row, price: microsToNumber(parseMicros(row.buyCost) + parseMicros(row.margin)) };
}
