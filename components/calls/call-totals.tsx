"use client";

import { formatCount, formatMinutes, toMicros } from "@/lib/portal/format";
import type { Period } from "@/lib/portal/period";
import { usageQueryFromCallQuery } from "@/lib/portal/usage-query";
import type { UsageReport, UsageTotalWithCost } from "@/lib/usage/schemas";
import { Card } from "../ui/card";
import { Stat } from "../ui/stat";
import { PeriodLabel } from "../portal/period-label";
import { useUsage } from "../reports/use-usage";
import { Amount } from "./call-columns";

/**
 * Totals of every call matching the call log's filter (not only the loaded pages), from GET /v1/usage, one line
 * per currency (amounts of different currencies are never added), under the period they cover. The server
 * answers cost figures only to cost sessions, and they call the sell side revenue.
 */
export function CallTotals({
  apiQuery,
  canReadCost,
  period,
}: {
  apiQuery: string;
  canReadCost: boolean;
  period: Period;
}) {
  const usage = usageQueryFromCallQuery(new URLSearchParams(apiQuery));
  const report = useUsage(usage);
  if (usage === null) {
    return (
      <p className="text-sm text-slate-600" data-testid="call-totals">
        Totals are shown for date, direction, destination, cause, account and supplier filters; a search by caller, call
        ID or UUID lists its calls only.
      </p>
    );
  }
  if (report.isError) return null; // the list itself still works; totals are a convenience
  const totals = (report.data?.totals ?? []) as (UsageReport["totals"][number] & Partial<UsageTotalWithCost>)[];
  return (
    <Card padding="sm" aria-label="Totals for this filter" data-testid="call-totals">
      <PeriodLabel period={period} className="mb-2" />
      {report.isPending ? (
        <p className="text-sm text-slate-600">Adding up the calls of this filter…</p>
      ) : totals.length === 0 ? (
        <p className="text-sm text-slate-600">No calls, no {canReadCost ? "revenue" : "spend"} for this filter.</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {totals.map((t) => (
            <li key={t.currency} data-testid={`call-totals-${t.currency}`}>
              <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
                <Stat label="Calls" testId="totals-calls" size="sm">
                  {formatCount(t.calls)}
                </Stat>
                <Stat label="Billed minutes" testId="totals-minutes" size="sm">
                  {formatMinutes(t.billedSeconds)}
                </Stat>
                <Stat label={`${canReadCost ? "Revenue" : "Spend"} (${t.currency})`} testId="totals-spend" size="sm">
                  <Amount micros={toMicros(t.price)} currency={t.currency} />
                </Stat>
                {canReadCost && t.buyCost !== undefined && t.margin !== undefined ? (
                  <>
                    <Stat label={`Buy cost (${t.currency})`} testId="totals-cost" size="sm">
                      <Amount micros={toMicros(t.buyCost)} currency={t.currency} />
                    </Stat>
                    <Stat label={`Margin (${t.currency})`} testId="totals-margin" size="sm">
                      <Amount micros={toMicros(t.margin)} currency={t.currency} signed />
                    </Stat>
                  </>
                ) : null}
                {t.unratedCalls > 0 ? (
                  <div className="self-end text-xs text-amber-800">
                    <dt className="sr-only">Unrated</dt>
                    <dd>
                      {formatCount(t.unratedCalls)} unrated {t.unratedCalls === 1 ? "call" : "calls"} not in{" "}
                      {canReadCost ? "revenue" : "spend"}
                    </dd>
                  </div>
                ) : null}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
