"use client";

import { formatCount, formatMinutes, toMicros } from "@/lib/portal/format";
import { usageQueryFromCallQuery } from "@/lib/portal/usage-query";
import type { UsageReport, UsageTotalWithCost } from "@/lib/usage/schemas";
import { useUsage } from "../reports/use-usage";
import { Amount } from "./call-columns";

/**
 * Totals of every call matching the call log's filter (not only the loaded pages), from
 * GET /v1/usage: the server answers cost figures only to cost sessions.
 */
export function CallTotals({ apiQuery, canReadCost }: { apiQuery: string; canReadCost: boolean }) {
  const usage = usageQueryFromCallQuery(new URLSearchParams(apiQuery));
  const report = useUsage(usage);
  if (usage === null) {
    return (
      <p className="text-sm text-slate-600" data-testid="call-totals">
        Totals are shown for date, direction, destination, cause and account filters; a search by caller, call ID or
        UUID lists its calls only.
      </p>
    );
  }
  if (report.isError) return null; // the list itself still works; totals are a convenience
  const totals = (report.data?.totals ?? []) as (UsageReport["totals"][number] & Partial<UsageTotalWithCost>)[];
  return (
    <section
      aria-label="Totals for this filter"
      className="rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-sm"
      data-testid="call-totals"
    >
      {report.isPending ? (
        <p className="text-sm text-slate-600">Adding up the calls of this filter…</p>
      ) : totals.length === 0 ? (
        <p className="text-sm text-slate-600">No calls, no spend for this filter.</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {totals.map((t) => (
            <li
              key={t.currency}
              className="flex flex-wrap gap-x-6 gap-y-1 text-sm"
              data-testid={`call-totals-${t.currency}`}
            >
              <Figure label="Calls" testId="totals-calls">
                {formatCount(t.calls)}
              </Figure>
              <Figure label="Billed minutes" testId="totals-minutes">
                {formatMinutes(t.billedSeconds)}
              </Figure>
              <Figure label={`Spend (${t.currency})`} testId="totals-spend">
                <Amount micros={toMicros(t.price)} currency={t.currency} />
              </Figure>
              {canReadCost && t.buyCost !== undefined && t.margin !== undefined ? (
                <>
                  <Figure label="Buy cost" testId="totals-cost">
                    <Amount micros={toMicros(t.buyCost)} currency={t.currency} />
                  </Figure>
                  <Figure label="Margin" testId="totals-margin">
                    <Amount micros={toMicros(t.margin)} currency={t.currency} signed />
                  </Figure>
                </>
              ) : null}
              {t.unratedCalls > 0 ? (
                <span className="self-end text-xs text-amber-800">
                  {formatCount(t.unratedCalls)} unrated {t.unratedCalls === 1 ? "call" : "calls"} not in spend
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Figure({ label, children, testId }: { label: string; children: React.ReactNode; testId: string }) {
  return (
    <span className="flex flex-col">
      <span className="text-xs text-slate-600">{label}</span>
      <span className="font-semibold tabular-nums" data-testid={testId}>
        {children}
      </span>
    </span>
  );
}
