import { parseMicros } from "@/lib/money/micros";
import { bucketCoverage, formatDay, formatMonth, type DayRange } from "@/lib/portal/period";
import { groupDestinationsByName, type ReportRow } from "@/lib/portal/report";
import type { UsageGroupBy } from "@/lib/usage/schemas";

/** One line of a report as the page shows it: an API row, or (by destination) the prefixes of one name. */
export interface ReportItem {
  /** Unique within the report: the key (or name) and the currency. */
  id: string;
  /** What the row is about, in words: "Nov 2026", "Philippines fixed", "Acme Contact Center", "None". */
  text: string;
  /** The id behind a named row (an account's or supplier's), shown small beside the name in the table. */
  detail?: string;
  /** Whether `text` is no real value ("None", "Unrated"). */
  muted: boolean;
  currency: string;
  calls: number;
  billedSeconds: number;
  unratedCalls: number;
  price: number;
  buyCost?: number;
  margin?: number;
  /** Day and month rows: whether the bucket holds all its days (a partial one is marked). */
  coverage?: { partial: boolean; note: string | null };
  /** Destination rows: the prefixes under the name, for the drill-down. */
  prefixes?: ReportRow[];
}

function keyText(row: ReportRow, groupBy: UsageGroupBy): string {
  if (groupBy === "day" && row.key) return formatDay(row.key);
  if (groupBy === "month" && row.key) return formatMonth(row.key);
  if (row.key === null) return row.label ?? "None";
  return row.label || row.key;
}

/** The API's rows as the page's items: destinations grouped by name, time buckets marked when partial. */
export function reportItems(rows: ReportRow[], groupBy: UsageGroupBy, range: DayRange, today: string): ReportItem[] {
  if (groupBy === "destination") {
    return groupDestinationsByName(rows).map((g) => ({
      id: `${g.name}|${g.currency}`,
      text: g.name,
      muted: g.prefixes.every((p) => p.key === null),
      currency: g.currency,
      calls: g.calls,
      billedSeconds: g.billedSeconds,
      unratedCalls: g.unratedCalls,
      price: g.price,
      buyCost: g.buyCost,
      margin: g.margin,
      prefixes: g.prefixes,
    }));
  }
  const time = groupBy === "day" || groupBy === "month";
  return rows.map((r) => ({
    id: `${r.key}|${r.currency}`,
    text: keyText(r, groupBy),
    detail: r.key !== null && r.label && r.label !== r.key ? r.key : undefined,
    muted: r.key === null,
    currency: r.currency,
    calls: r.calls,
    billedSeconds: r.billedSeconds,
    unratedCalls: r.unratedCalls,
    price: r.price,
    buyCost: r.buyCost,
    margin: r.margin,
    coverage: time && r.key ? bucketCoverage(r.key, groupBy, range, today) : undefined,
  }));
}

/** What a chart or a sort measures. Margin and margin % exist for cost sessions only. */
export type Metric = "price" | "margin" | "marginPercent";

const micros = (v: number | undefined) => (v === undefined ? null : parseMicros(v));

/**
 * An item's value of a metric as an exact integer to compare and scale bars with: micros of money, and margin %
 * in millionths of the revenue (null when there is no revenue to divide by, or no cost figures).
 */
export function metricValue(item: Pick<ReportItem, "price" | "margin">, metric: Metric): bigint | null {
  const price = parseMicros(item.price);
  if (metric === "price") return price;
  const margin = micros(item.margin);
  if (margin === null) return null;
  if (metric === "margin") return margin;
  return price === 0n ? null : (margin * 1_000_000n) / price;
}

/** Compares two items by a metric, exactly; items without a value sort first ascending. */
export function byMetric(metric: Metric) {
  return (a: Pick<ReportItem, "price" | "margin">, b: Pick<ReportItem, "price" | "margin">): number => {
    const x = metricValue(a, metric);
    const y = metricValue(b, metric);
    if (x === y) return 0;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  };
}
