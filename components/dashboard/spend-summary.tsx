import { formatCount, formatMoney } from "@/lib/portal/format";
import type { SpendSeries } from "@/lib/portal/spend-per-day";

/** Totals of the last 30 days per currency: spend, calls and the average price of a call. */
export function SpendSummary({ series }: { series: SpendSeries[] }) {
  return (
    <section aria-labelledby="summary-title" className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="summary-title" className="text-sm font-medium text-slate-600">
        Last 30 days
      </h2>
      {series.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">No calls yet.</p>
      ) : (
        <dl className="mt-3 space-y-4">
          {series.map((s) => {
            const calls = s.days.reduce((n, d) => n + d.calls, 0);
            // Exact integer division of micros, rounded half up: no float money.
            const average = calls === 0 ? 0n : (s.totalMicros * 2n + BigInt(calls)) / (2n * BigInt(calls));
            return (
              <div key={s.currency} className="grid grid-cols-2 gap-x-3 gap-y-2 border-t border-slate-100 pt-3 first:border-0 first:pt-0">
                <div className="col-span-2">
                  <dt className="text-xs text-slate-500">Spend ({s.currency})</dt>
                  <dd className="mt-0.5 text-xl font-semibold tabular-nums">{formatMoney(s.totalMicros, s.currency)}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-500">Calls</dt>
                  <dd className="mt-0.5 font-semibold tabular-nums">{formatCount(calls)}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-500">Avg. per call</dt>
                  <dd className="mt-0.5 font-semibold tabular-nums">{formatMoney(average, s.currency)}</dd>
                </div>
              </div>
            );
          })}
        </dl>
      )}
    </section>
  );
}
