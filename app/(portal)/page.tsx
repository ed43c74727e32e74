import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { answeredQueries } from "@/components/api/answered-queries";
import { BalanceWidget } from "@/components/balance/balance-widget";
import { LatestCalls } from "@/components/dashboard/latest-calls";
import { ScreenZone } from "@/components/dashboard/screen-zone";
import { HowToPayCard } from "@/components/payments/how-to-pay-card";
import { PaymentsCard } from "@/components/payments/payments-card";
import { SpendChart } from "@/components/dashboard/spend-chart";
import { SpendSummary } from "@/components/dashboard/spend-summary";
import { LimitsCard } from "@/components/limits/limits-card";
import { Card } from "@/components/ui/card";
import { callReads } from "@/lib/calls/call-store";
import { getDb } from "@/lib/db/client";
import { accountNames } from "@/lib/portal/account-names";
import { accountTimeZones } from "@/lib/portal/account-zones";
import { dashboardFirstScreen } from "@/lib/portal/first-screen";
import { accountOptions } from "@/lib/portal/names";
import { dashboardPayments } from "@/lib/portal/payments";
import { ALL_ACCOUNTS_ZONE, describePeriod, monthOf, periodZone } from "@/lib/portal/period";
import { addDays, dayInZone } from "@/lib/time/zoned-time";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Dashboard" };

export default async function DashboardPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.dashboard, searchParams);
  const { account } = params;
  const db = await getDb();
  // A platform session looks at one account at a time: the switcher's choice (in the URL), else the first.
  const options = await accountOptions(db, principal);
  const selected = options
    ? (options.find((a) => a.id === account)?.id ?? options[0]?.id ?? null)
    : principal.billingGroupId;
  const now = new Date();
  // The days and the month are the account's own (its zone), as its invoices' and GET /v1/usage's in that zone.
  const zones = selected ? await accountTimeZones(db, principal, [selected]) : {};
  const timeZone = (selected && zones[selected]) || ALL_ACCOUNTS_ZONE;
  // Read side by side; the balance and the latest calls too, so they are in the page's HTML (not fetched after it).
  const [names, spend, paymentsOf, firstScreen] = await Promise.all([
    // A customer's balance is captioned with its own account's name (its reach holds that one only).
    options || !selected ? undefined : accountNames(db, principal),
    callReads(db).spendPerDay(
      { billingGroupId: selected ?? principal.billingGroupId },
      { withCost: session.canReadOperatorCost, now, timeZone },
    ),
    dashboardPayments(db, principal),
    dashboardFirstScreen(principal, options ? selected : undefined),
  ]);
  const ownName = selected ? names?.[selected] : undefined;
  // The 30 days spendPerDay sums in the account's zone, the last one today (not over yet).
  const today = dayInZone(now, timeZone);
  const first = addDays(today, -29);
  const { pay, panel: payments } = paymentsOf;
  const text = (value: string | string[] | undefined) => (typeof value === "string" ? value.slice(0, 300) : undefined);
  const zoneText = periodZone(timeZone, selected ? "account" : "all accounts");
  const period = describePeriod({ from: first, until: today }, zoneText, today);
  const month = describePeriod(monthOf(today), zoneText, today);
  return (
    <HydrationBoundary state={answeredQueries(firstScreen)}>
      <div className="flex flex-col gap-6">
        <h1 className="text-2xl font-semibold tracking-tight">Dashboard</h1>
        <ScreenZone zoneText={zoneText} />
        <div className="grid gap-6 lg:grid-cols-[minmax(0,22rem)_1fr]">
          <div className="flex flex-col gap-6">
            <BalanceWidget accounts={options} selected={selected} ownName={ownName} pay={pay} />
            {payments ? (
              <PaymentsCard
                panel={payments}
                notice={{ topup: text(params.topup), payment: text(params.payment), message: text(params.message) }}
              />
            ) : pay && pay.kind !== "card" ? (
              <HowToPayCard pay={pay} />
            ) : null}
            <LimitsCard account={options ? selected : null} platform={options !== undefined} />
            <SpendSummary series={spend} period={period} month={month} showCost={session.canReadOperatorCost} />
          </div>
          <Card aria-labelledby="spend-title">
            <h2 id="spend-title" className="sr-only">
              {session.canReadOperatorCost ? "Revenue" : "Spend"} per day
            </h2>
            <SpendChart
              series={spend}
              period={period}
              timeZone={timeZone}
              label={session.canReadOperatorCost ? "Revenue" : "Spend"}
            />
          </Card>
        </div>
        <LatestCalls account={options ? (selected ?? undefined) : undefined} timeZone={timeZone} />
      </div>
    </HydrationBoundary>
  );
}
