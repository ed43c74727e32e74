import { formatAmount, formatCount } from "@/lib/portal/format";
import type { SpendSeries } from "@/lib/portal/spend-per-day";
import { cardClass } from "@/components/ui/card";
import { Amount } from "../calls/call-columns";

/**
 * Totals of the last 30 days per currency: spend, calls and the average price of a call; for cost
 * sessions (the server decides: `showCost`) also buy cost and margin, losses marked.
 */
export function SpendSummary({ series, showCost = false }: { series: SpendSeries[]; showCost?: boolean }) {
  return (
    <section aria-labelledby="summary-title" className={cardClass}>
      <h2 id="summary-title" className="text-sm font-medium text-slate-600">
        Last 30 days (UTC days)
      </h2>
      {series.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600">No calls yet.</p>
      ) : (
        <div className="mt-3 space-y-4">
          {series.map((s) => {
            const calls = s.days.reduce((n, d) => n + d.calls, 0);
            // Exact integer division of micros, rounded half up: no float money.
            const average = calls === 0 ? 0n : (s.totalMicros * 2n + BigInt(calls)) / (2n * BigInt(calls));
            const cost = showCost ? s.cost : undefined;
            return (
              <dl
                key={s.currency}
                className="grid grid-cols-2 gap-x-3 gap-y-2 border-t border-slate-100 pt-3 first:border-0 first:pt-0"
                data-testid={`summary-${s.currency}`}
              >
                <div className="col-span-2">
                  <dt className="text-xs text-slate-600">Spend ({s.currency})</dt>
                  <dd className="mt-0.5 text-xl font-semibold tabular-nums">
                    {formatAmount(s.totalMicros, s.currency)}
                  </dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-600">Calls</dt>
                  <dd className="mt-0.5 font-semibold tabular-nums">{formatCount(calls)}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-600">Avg. per call</dt>
                  <dd className="mt-0.5 font-semibold tabular-nums">{formatAmount(average, s.currency)}</dd>
                </div>
                {cost ? (
                  <>
                    <div>
                      <dt className="text-xs text-slate-600">Buy cost</dt>
                      <dd className="mt-0.5 font-semibold tabular-nums" data-testid="summary-cost">
                        {formatAmount(cost.buyCostMicros, s.currency)}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs text-slate-600">Margin</dt>
                      <dd className="mt-0.5 font-semibold tabular-nums" data-testid="summary-margin">
                        <Amount micros={cost.marginMicros} currency={s.currency} signed />
                      </dd>
                    </div>
                  </>
                ) : null}
              </dl>
            );
          })}
        </div>
      )}
    </section>
  );
}
