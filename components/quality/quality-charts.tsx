import type { QualityWindow } from "@/lib/quality/schemas";
import { Card } from "../ui/card";

/** The prefixes a chart draws: the most attempted (the table below lists every one). */
const CHART_PREFIXES = 12;

interface Bar {
  key: string;
  label: string;
  value: number | null;
  /** What hover and screen readers get: the prefix, the value and what it was measured over. */
  detail: string;
}

/**
 * One metric per prefix as CSS bars in the spend chart's style (components/dashboard/spend-chart.tsx): every bar
 * carries its value for hover and screen readers; a prefix without the metric (no answered calls for ACD) has none.
 */
function BarChart({ title, bars, max, unit }: { title: string; bars: Bar[]; max: number; unit: string }) {
  return (
    <Card as="figure" data-testid={`quality-${unit === "%" ? "asr" : "acd"}`}>
      <figcaption className="mb-3 flex items-baseline justify-between gap-2">
        <span className="text-sm font-medium text-slate-600">{title}</span>
        <span className="text-[11px] text-slate-600 tabular-nums" aria-hidden>
          max {max}
          {unit === "%" ? "%" : ` ${unit}`}
        </span>
      </figcaption>
      <div className="relative">
        <div
          className="pointer-events-none absolute inset-x-0 top-0 border-t border-dashed border-slate-200"
          aria-hidden
        />
        <ol className="flex h-32 items-end gap-[3px] border-b border-slate-300 pt-3" aria-label={title}>
          {bars.map((b) => (
            <li key={b.key} className="group relative flex h-full max-w-16 flex-1 items-end" title={b.detail}>
              <span className="sr-only">{b.detail}</span>
              <div
                aria-hidden
                className="w-full rounded-t-sm bg-brand-500 transition-colors group-hover:bg-brand-700"
                style={{ height: `${b.value === null || max === 0 ? 0 : Math.max((b.value / max) * 100, 1)}%` }}
              />
            </li>
          ))}
        </ol>
      </div>
      <ol className="mt-1 flex gap-[3px] text-[11px] text-slate-600" aria-hidden>
        {bars.map((b) => (
          <li key={b.key} className="max-w-16 flex-1 truncate text-center">
            {b.label}
          </li>
        ))}
      </ol>
    </Card>
  );
}

const percent = (v: number | null) => (v === null ? "–" : `${v.toFixed(2)}%`);
const seconds = (v: number | null) => (v === null ? "–" : `${v.toFixed(1)} s`);
const millis = (v: number | null) => (v === null ? "–" : `${v} ms`);

/**
 * ASR and ACD per matched prefix over one window (GET /v1/quality, groupBy=prefix), as two small charts and the table
 * of every prefix with PDD. `names`: account names, shown when the windows span several accounts (a platform view).
 */
export function QualityCharts({
  windows,
  windowLabel,
  names,
}: {
  windows: QualityWindow[];
  windowLabel: string;
  names?: Record<string, string>;
}) {
  if (windows.length === 0) {
    return (
      <div
        className="grid h-32 place-items-center rounded-lg bg-slate-50 text-sm text-slate-600"
        data-testid="quality-empty"
      >
        No outbound calls in the last {windowLabel}.
      </div>
    );
  }
  const several = new Set(windows.map((w) => w.billingGroupId)).size > 1;
  const labelOf = (w: QualityWindow) =>
    `${several ? `${names?.[w.billingGroupId] ?? w.billingGroupId} ` : ""}${w.prefix ?? "unrated"}`;
  const charted = [...windows].sort((a, b) => b.attempts - a.attempts).slice(0, CHART_PREFIXES);
  const calls = (n: number) => `${n} ${n === 1 ? "call" : "calls"}`;
  const maxAcd = Math.ceil(Math.max(0, ...charted.map((w) => w.acd ?? 0)));
  return (
    <div className="flex flex-col gap-4">
      <div className="grid gap-4 md:grid-cols-2">
        <BarChart
          title={`ASR per prefix, last ${windowLabel}`}
          unit="%"
          max={100}
          bars={charted.map((w) => ({
            key: `${w.billingGroupId}:${w.prefix}`,
            label: labelOf(w),
            value: w.asr,
            detail: `${labelOf(w)}: ASR ${percent(w.asr)} of ${calls(w.attempts)}`,
          }))}
        />
        <BarChart
          title={`ACD per prefix, last ${windowLabel}`}
          unit="s"
          max={maxAcd}
          bars={charted.map((w) => ({
            key: `${w.billingGroupId}:${w.prefix}`,
            label: labelOf(w),
            value: w.acd,
            detail: `${labelOf(w)}: ACD ${seconds(w.acd)} over ${calls(w.answered)} answered`,
          }))}
        />
      </div>
      <Card padding="none" className="overflow-x-auto" role="region" aria-label="Quality table" tabIndex={0}>
        <table className="w-full text-sm" data-testid="quality-table">
          <caption className="sr-only">Quality per prefix, last {windowLabel}</caption>
          <thead className="border-b border-slate-200 text-left text-xs font-medium text-slate-500">
            <tr>
              <th scope="col" className="px-4 py-2">
                Prefix
              </th>
              <th scope="col" className="px-4 py-2 text-right">
                Attempts
              </th>
              <th scope="col" className="px-4 py-2 text-right">
                Answered
              </th>
              <th scope="col" className="px-4 py-2 text-right">
                ASR
              </th>
              <th scope="col" className="px-4 py-2 text-right">
                ACD
              </th>
              <th scope="col" className="px-4 py-2 text-right">
                PDD
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 tabular-nums">
            {windows.map((w) => (
              <tr key={`${w.billingGroupId}:${w.prefix}`}>
                <th scope="row" className="px-4 py-2 text-left font-medium">
                  {labelOf(w)}
                </th>
                <td className="px-4 py-2 text-right">{w.attempts}</td>
                <td className="px-4 py-2 text-right">{w.answered}</td>
                <td className="px-4 py-2 text-right">{percent(w.asr)}</td>
                <td className="px-4 py-2 text-right">{seconds(w.acd)}</td>
                <td className="px-4 py-2 text-right">{millis(w.pdd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </div>
  );
}
