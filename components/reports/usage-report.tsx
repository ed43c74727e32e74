"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useId, useMemo, useState } from "react";
import { rangeProblem } from "@/lib/portal/call-filters";
import { formatAmount, formatCount, formatMinutes, formatPercent, toMicros } from "@/lib/portal/format";
import { ALL_ACCOUNTS_ZONE, describePeriod, periodZone, type Period } from "@/lib/portal/period";
import {
  asTierRevenue,
  groupByCurrency,
  parseReportFilters,
  reportCsv,
  reportFiltersToSearch,
  reportToUsageQuery,
  type ReportFilters,
  type ReportRow,
} from "@/lib/portal/report";
import { dayInZone } from "@/lib/time/zoned-time";
import type { UsageGroupBy, UsageReport as UsageReportJson, UsageTotalWithCost } from "@/lib/usage/schemas";
import { ApiProblem } from "../api/api-client";
import type { AccountChoice } from "../balance/balance-widget";
import { Amount } from "../calls/call-columns";
import { PeriodLabel } from "../portal/period-label";
import { useIsClient } from "../use-is-client";
import { primaryButtonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, inputClass as uiInputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { Stat } from "@/components/ui/stat";
import { AccountField, DateRangeFields, DirectionField } from "../portal/filter-fields";
import { DestinationDrilldown } from "./destination-drilldown";
import { METRIC_LABEL, ReportChart } from "./report-chart";
import { reportItems, type Metric, type ReportItem } from "./report-items";
import { ReportTable } from "./report-table";
import { useUsage } from "./use-usage";

const GROUPS: { id: UsageGroupBy; label: string; operatorOnly?: boolean; accountsOnly?: boolean }[] = [
  { id: "day", label: "Day" },
  { id: "month", label: "Month" },
  { id: "destination", label: "Destination" },
  { id: "direction", label: "Direction" },
  { id: "hangupCause", label: "Hangup cause" },
  { id: "account", label: "Account", accountsOnly: true },
  { id: "supplier", label: "Supplier", operatorOnly: true },
];

const inputClass = `mt-1 ${uiInputClass()}`;

/** Today in the report's zone (in the browser: the server's render and the browser's could straddle midnight). */
function useToday(timeZone: string): string | undefined {
  const isClient = useIsClient();
  return isClient ? dayInZone(new Date(), timeZone) : undefined;
}

/**
 * The Reports page: GET /v1/usage for the chosen grouping and filters (this month unless the URL says
 * otherwise), one panel per currency (totals, chart, table: amounts of different currencies are never compared,
 * sorted or charted together), each stating its period and zone. The periods are the account's own, in its time
 * zone (the customer's account, or the one a platform session picks); over every account they are UTC, and say so
 * (the viewer's Local/UTC switch does not move them: docs/contract.md "Periods on screens"). Destinations are
 * grouped by the rate card's name, with their prefixes (and, for cost sessions, their suppliers) one click away.
 */
export function UsageReport({
  costView,
  accounts,
  suppliers = {},
  zones,
  ownAccount,
}: {
  /**
   * Whose cost figures the report shows (the API's usage cost view, lib/auth/cost-view.ts usageCostViewOf): the
   * operator's (revenue over the carrier's cost, suppliers), a reseller's own (`tier`: revenue = what its children paid
   * it, by customer and destination; no supplier), or none (spend only).
   */
  costView: "none" | "operator" | "tier";
  accounts?: AccountChoice[];
  /** Each account's time zone in the session's reach, by id. */
  zones: Record<string, string>;
  /** A customer's own account (null for a platform session, which picks one or reads every account). */
  ownAccount: string | null;
  /** Supplier names by id: cost sessions only. */
  suppliers?: Record<string, string>;
}) {
  const id = useId();
  const canReadCost = costView !== "none";
  const tierView = costView === "tier";
  const router = useRouter();
  const searchParams = useSearchParams();
  // One zone for the whole screen: the account's, else (staff over every account) UTC.
  const accountId = accounts ? parseReportFilters(searchParams).account : (ownAccount ?? undefined);
  const accountZone = accountId ? zones[accountId] : undefined;
  const zoneName = accountZone ?? ALL_ACCOUNTS_ZONE;
  const zoneText = periodZone(zoneName, accountZone ? "account" : "all accounts");
  const today = useToday(zoneName);
  const filters = useMemo(() => parseReportFilters(searchParams, today), [searchParams, today]);
  // A reseller groups by its customers (accounts of its subtree) without picking one; suppliers are the operator's.
  const groups = GROUPS.filter(
    (g) => (!g.operatorOnly || costView === "operator") && (!g.accountsOnly || accounts || tierView),
  );
  const groupBy = groups.some((g) => g.id === filters.groupBy) ? filters.groupBy : "day";
  const usageQuery = reportToUsageQuery({ ...filters, groupBy }, zoneName);
  const problem = rangeProblem(filters);
  const revenueLabel = canReadCost ? "Revenue" : "Spend";
  const [metric, setMetric] = useState<Metric>("price");
  const [openId, setOpenId] = useState<string | null>(null);
  const onOpen = useCallback(
    (item: ReportItem) => setOpenId((open) => (open === item.id ? null : item.id)),
    [setOpenId],
  );

  // A range the API would refuse is not asked for (it could only fail): the form says what to change.
  const report = useUsage(usageQuery, { enabled: today !== undefined && problem === null });
  // Months without a From: the first month holds calls only from the first day there are any. Its first day
  // (by day, same filters) marks that month partial, instead of it reading like a slow full month.
  const needsFirstDay = groupBy === "month" && !filters.from && problem === null && today !== undefined;
  const byDay = useUsage(needsFirstDay ? reportToUsageQuery({ ...filters, groupBy: "day" }, zoneName) : null);
  const firstDay = needsFirstDay ? (byDay.data?.rows.find((r) => r.key !== null)?.key ?? undefined) : undefined;

  const set = (patch: Partial<ReportFilters>) => {
    setOpenId(null);
    router.replace(`/reports${reportFiltersToSearch({ ...filters, groupBy, ...patch })}`, { scroll: false });
  };

  const apiRows = useMemo(() => (report.data?.rows ?? []) as ReportRow[], [report.data]);
  // A reseller's revenue is what its children paid it (buy cost + margin), shown in place of the calls' price.
  const rows = useMemo(() => (tierView ? apiRows.map(asTierRevenue) : apiRows), [apiRows, tierView]);
  const groupLabel = groups.find((g) => g.id === groupBy)?.label ?? "Group";
  const timeKeys = groupBy === "day" || groupBy === "month";
  const period: Period | null = today ? describePeriod(filters, zoneText, today) : null;
  const items = useMemo(
    () => (today ? reportItems(rows, groupBy, { ...filters, from: filters.from ?? firstDay }, today) : []),
    [rows, groupBy, filters, today, firstDay],
  );
  const csvHref =
    report.data && problem === null
      ? `data:text/csv;charset=utf-8,${encodeURIComponent(reportCsv(apiRows, groupBy, canReadCost))}`
      : null;
  const apiTotals = (report.data?.totals ?? []) as (UsageReportJson["totals"][number] & Partial<UsageTotalWithCost>)[];
  const totals = tierView ? apiTotals.map(asTierRevenue) : apiTotals;

  return (
    <div className="flex flex-col gap-4">
      <Card
        as="form"
        padding="sm"
        aria-label="Report filters"
        onSubmit={(e: React.FormEvent) => e.preventDefault()}
        className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-7 lg:items-end"
      >
        <Field id={`${id}-group`} label="Group by">
          <select
            id={`${id}-group`}
            value={groupBy}
            onChange={(e) => set({ groupBy: e.target.value as UsageGroupBy })}
            className={inputClass}
          >
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.label}
              </option>
            ))}
          </select>
        </Field>
        {canReadCost ? (
          <Field id={`${id}-metric`} label="Chart">
            <select
              id={`${id}-metric`}
              value={metric}
              onChange={(e) => setMetric(e.target.value as Metric)}
              className={inputClass}
            >
              {(["price", "margin", "marginPercent"] as Metric[]).map((m) => (
                <option key={m} value={m}>
                  {METRIC_LABEL(m, revenueLabel)}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <DateRangeFields
          id={id}
          from={filters.from}
          until={filters.until}
          zone={zoneName}
          error={problem}
          onChange={set}
        />
        <DirectionField id={id} value={filters.direction} onChange={(direction) => set({ direction })} />
        {accounts ? (
          <AccountField id={id} accounts={accounts} value={filters.account} onChange={(account) => set({ account })} />
        ) : null}
        <div className="flex items-end">
          {csvHref ? (
            <a
              href={csvHref}
              download={`usage-by-${groupBy}.csv`}
              className={`${primaryButtonClass({ compact: true, block: true })} text-center`}
              data-testid="report-csv"
            >
              Download CSV
            </a>
          ) : (
            <button type="button" disabled className={primaryButtonClass({ compact: true, block: true })}>
              Download CSV
            </button>
          )}
        </div>
      </Card>

      {problem ? (
        <Card className="text-sm text-slate-600" data-testid="report-blocked">
          No report until the dates are corrected: {problem}
        </Card>
      ) : report.isPending || !period ? (
        <Card className="text-sm text-slate-600" role="status">
          Adding up calls…
        </Card>
      ) : report.isError ? (
        <Card>
          <LoadError
            title="The report could not be loaded"
            detail={report.error instanceof ApiProblem ? report.error.detail : "The network request failed."}
            onRetry={() => void report.refetch()}
            compact
          />
        </Card>
      ) : rows.length === 0 ? (
        <Card className="text-sm text-slate-600" data-testid="report-empty">
          <PeriodLabel period={period} className="mb-1" />
          No calls match this report&apos;s filters.
        </Card>
      ) : (
        groupByCurrency(items).map(({ currency, items: own }) => (
          <section
            key={currency}
            aria-labelledby={`${id}-${currency}`}
            className="flex flex-col gap-4"
            data-testid="currency-panel"
            data-currency={currency}
          >
            <h2 id={`${id}-${currency}`} className="text-lg font-semibold tracking-tight">
              {currency}
              {groupByCurrency(items).length > 1 ? (
                <span className="ml-2 text-sm font-normal text-slate-600">
                  amounts in {currency} only; other currencies have their own panel
                </span>
              ) : null}
            </h2>
            <ReportTotals
              total={totals.find((t) => t.currency === currency)}
              canReadCost={canReadCost}
              revenueLabel={revenueLabel}
              period={period}
            />
            <ReportChart
              items={own}
              currency={currency}
              groupLabel={groupLabel}
              timeKeys={timeKeys}
              metric={canReadCost ? metric : "price"}
              revenueLabel={revenueLabel}
              period={period}
            />
            <ReportTable
              items={own}
              groupLabel={groupLabel}
              canReadCost={canReadCost}
              timeKeys={timeKeys}
              zoneName={zoneName}
              revenueLabel={revenueLabel}
              openId={openId}
              onOpen={groupBy === "destination" ? onOpen : undefined}
              renderOpen={(item) => (
                <DestinationDrilldown
                  item={item}
                  usageQuery={usageQuery}
                  suppliers={suppliers}
                  canReadCost={costView === "operator"}
                  revenueLabel={revenueLabel}
                  onClose={() => setOpenId(null)}
                />
              )}
            />
          </section>
        ))
      )}
    </div>
  );
}

function ReportTotals({
  total,
  canReadCost,
  revenueLabel,
  period,
}: {
  total: (UsageReportJson["totals"][number] & Partial<UsageTotalWithCost>) | undefined;
  canReadCost: boolean;
  revenueLabel: string;
  period: Period;
}) {
  if (!total) return null;
  const cost = canReadCost && total.buyCost !== undefined && total.margin !== undefined;
  return (
    <Card aria-label={`Totals in ${total.currency}`} data-testid="report-totals">
      <h3 className="text-sm font-medium text-slate-600">Totals in {total.currency}</h3>
      <PeriodLabel period={period} className="mt-0.5" />
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-7">
        <Stat label="Calls">{formatCount(total.calls)}</Stat>
        <Stat label="Billed minutes">{formatMinutes(total.billedSeconds)}</Stat>
        <Stat label={`${revenueLabel} (${total.currency})`} testId="report-total-price">
          {formatAmount(toMicros(total.price), total.currency)}
        </Stat>
        {cost ? (
          <>
            <Stat label={`Buy cost (${total.currency})`}>{formatAmount(toMicros(total.buyCost!), total.currency)}</Stat>
            <Stat label={`Margin (${total.currency})`} testId="report-total-margin">
              <Amount micros={toMicros(total.margin!)} currency={total.currency} signed />
            </Stat>
            <Stat label="Margin %">{formatPercent(toMicros(total.margin!), toMicros(total.price)) ?? "—"}</Stat>
          </>
        ) : null}
        <Stat label="Unrated calls">{formatCount(total.unratedCalls)}</Stat>
      </dl>
    </Card>
  );
}
