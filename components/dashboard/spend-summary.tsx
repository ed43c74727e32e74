import { formatAmount, formatCount } from "@/lib/portal/format";
import type { Period } from "@/lib/portal/period";
import type { SpendSeries } from "@/lib/calls/spend-per-day";
import { Card, CardTitle } from "@/components/ui/card";
import { Stat } from "@/components/ui/stat";
import { Amount } from "../calls/call-columns";
import { PeriodLabel } from "../portal/period-label";

/**
 * Totals of the last 30 days per currency (never added across currencies): spend, calls and the average price of
 * a call, and this month's spend, each under the period it covers; for cost sessions (the server decides: `showCost`) the sell side is
 * revenue, with buy cost and margin, losses marked.
 */
export function SpendSummary({
  series,
  period,
  month,
  showCost = false,
}: {
  series: SpendSeries[];
  period: Period;
  /** This month, in the same zone as `period` (the account's). */
  month: Period;
  showCost?: boolean;
}) {
  const sell = showCost ? "Revenue" : "Spend";
  return (
    <Card aria-labelledby="summary-title">
      <CardTitle id="summary-title">Last 30 days</CardTitle>
      <PeriodLabel period={period} className="mt-1" />
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
                <Stat label={`${sell} (${s.currency})`} size="lg" className="col-span-2">
                  {formatAmount(s.totalMicros, s.currency)}
                </Stat>
                <Stat label={`${sell} this month (${s.currency})`} className="col-span-2">
                  <span data-testid="summary-month">{formatAmount(s.month.spendMicros, s.currency)}</span>
                  <PeriodLabel period={month} className="mt-0.5 font-normal" />
                </Stat>
                <Stat label="Calls">{formatCount(calls)}</Stat>
                <Stat label="Avg. per call">{formatAmount(average, s.currency)}</Stat>
                {cost ? (
                  <>
                    <Stat label="Buy cost" testId="summary-cost">
                      {formatAmount(cost.buyCostMicros, s.currency)}
                    </Stat>
                    <Stat label="Margin" testId="summary-margin">
                      <Amount micros={cost.marginMicros} currency={s.currency} signed />
                    </Stat>
                  </>
                ) : null}
              </dl>
            );
          })}
        </div>
      )}
    </Card>
  );
}
