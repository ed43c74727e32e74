import { formatAmount, formatPercent, toMicros } from "@/lib/portal/format";
import type { Period } from "@/lib/portal/period";
import { Card } from "../ui/card";
import { PeriodLabel } from "../portal/period-label";
import { byMetric, metricValue, type Metric, type ReportItem } from "./report-items";

/** Bar length in tenths of a percent of the largest magnitude, from exact integers (no float money). */
function share(value: bigint, max: bigint): number {
  const abs = value < 0n ? -value : value;
  return max === 0n ? 0 : Number((abs * 1000n) / max) / 10;
}

export const METRIC_LABEL = (metric: Metric, revenue: string) =>
  metric === "price" ? revenue : metric === "margin" ? "Margin" : "Margin %";

function metricText(item: ReportItem, metric: Metric): string {
  if (metric === "price") return formatAmount(toMicros(item.price), item.currency);
  if (metric === "margin") return item.margin === undefined ? "—" : formatAmount(toMicros(item.margin), item.currency);
  if (item.margin === undefined) return "—";
  return formatPercent(toMicros(item.margin), toMicros(item.price)) ?? "—";
}

/**
 * One currency's items as horizontal bars of one metric, each labelled with its value: days and months in time
 * order (the latest 31, a partial one marked), other groups largest first (top 15). Negative margins run in red.
 * The caller hands one currency only: bars of different currencies never share an axis.
 */
export function ReportChart({
  items,
  currency,
  groupLabel,
  timeKeys,
  metric,
  revenueLabel,
  period,
}: {
  items: ReportItem[];
  currency: string;
  groupLabel: string;
  timeKeys: boolean;
  metric: Metric;
  revenueLabel: string;
  period: Period;
}) {
  const measured = items.filter((i) => metricValue(i, metric) !== null);
  const top = timeKeys ? measured.slice(-31) : [...measured].sort(byMetric(metric)).reverse().slice(0, 15);
  const max = top.reduce((m, i) => {
    const v = metricValue(i, metric)!;
    const abs = v < 0n ? -v : v;
    return abs > m ? abs : m;
  }, 0n);
  const title = `${METRIC_LABEL(metric, revenueLabel)} in ${currency} by ${groupLabel.toLowerCase()} ${
    timeKeys ? `(latest ${top.length})` : `(largest ${top.length})`
  }`;
  return (
    <Card as="figure" data-testid="report-chart" data-currency={currency}>
      <figcaption className="mb-3">
        <span className="block text-sm font-medium text-slate-600">{title}</span>
        <PeriodLabel period={period} className="mt-0.5" />
      </figcaption>
      {top.length === 0 ? (
        <p className="text-sm text-slate-600">
          Nothing to chart: no row has a {METRIC_LABEL(metric, revenueLabel).toLowerCase()}.
        </p>
      ) : (
        <ol className="space-y-1.5">
          {top.map((item) => {
            const value = metricValue(item, metric)!;
            const negative = value < 0n;
            const partial = item.coverage?.partial;
            return (
              <li
                key={item.id}
                className="grid grid-cols-[minmax(5rem,12rem)_1fr_auto] items-center gap-3 text-sm sm:grid-cols-[minmax(6rem,16rem)_1fr_auto]"
                data-testid="report-bar"
              >
                <span className="truncate text-slate-800" title={item.text}>
                  {item.text}
                  {partial ? <span className="ml-1 text-xs text-amber-900">(partial)</span> : null}
                </span>
                <span className="h-3 rounded-sm bg-slate-100" aria-hidden>
                  <span
                    className={`block h-3 rounded-sm ${negative ? "bg-red-500" : partial ? "bg-brand-600/40" : "bg-brand-600"}`}
                    style={{ width: `${Math.max(share(value, max), value !== 0n ? 0.5 : 0)}%` }}
                  />
                </span>
                <span className={`tabular-nums ${negative ? "text-red-700" : "text-slate-800"}`}>
                  {negative ? <span aria-hidden>▼ </span> : null}
                  {metricText(item, metric)}
                  {negative ? <span className="sr-only"> (loss)</span> : null}
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
