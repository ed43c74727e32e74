import { z } from "zod";
import { USAGE_GROUP_BY, type UsageGroupBy, type UsageReport } from "@/lib/usage/schemas";
import { callFiltersToApiQuery, type DayZone } from "./call-filters";

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

export function parseReportFilters(params: { get(name: string): string | null }): ReportFilters {
  const out: Record<string, string> = {};
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const parsed = fields[key].safeParse(params.get(key));
    if (parsed.success) out[key] = parsed.data;
  }
  return { groupBy: "day", ...out } as ReportFilters;
}

/**
 * GET /v1/usage query of a report. Day bounds use the same rules as the call log (whole days in the
 * shown zone), and the day/month buckets are cut in that zone too: `timeZone` is its IANA name.
 */
export function reportToUsageQuery(filters: ReportFilters, timeZone: string): URLSearchParams {
  const zone: DayZone = timeZone === "UTC" ? "utc" : "local";
  const calls = callFiltersToApiQuery({ from: filters.from, until: filters.until, direction: filters.direction }, zone);
  const q = new URLSearchParams({ groupBy: filters.groupBy, timeZone });
  for (const [k, v] of calls) q.set(k, v);
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

type ReportRow = UsageReport["rows"][number] & { buyCost?: number; margin?: number };

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
