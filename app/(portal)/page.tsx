import type { Metadata } from "next";
import { BalanceWidget } from "@/components/balance/balance-widget";
import { LatestCalls } from "@/components/dashboard/latest-calls";
import { SpendChart } from "@/components/dashboard/spend-chart";
import { SpendSummary } from "@/components/dashboard/spend-summary";
import { getDb } from "@/lib/db/client";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalSession } from "@/lib/portal/session";
import { spendPerDay } from "@/lib/portal/spend-per-day";
import { cardClass } from "@/components/ui/card";

export const metadata: Metadata = { title: "Dashboard" };

export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await searchParams;
  const { session, principal } = await requirePortalSession(
    typeof account === "string" ? `/?account=${encodeURIComponent(account)}` : "/",
  );
  const db = await getDb();
  // A platform session looks at one account at a time: the switcher's choice (in the URL), else the first.
  const options = await accountOptions(db, principal);
  const selected = options
    ? (options.find((a) => a.id === account)?.id ?? options[0]?.id ?? null)
    : principal.billingGroupId;
  const spend = await spendPerDay(
    db,
    { billingGroupId: selected ?? principal.billingGroupId },
    { withCost: session.canReadCost },
  );
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">Dashboard</h1>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,22rem)_1fr]">
        <div className="flex flex-col gap-6">
          <BalanceWidget accounts={options} selected={selected} />
          <SpendSummary series={spend} showCost={session.canReadCost} />
        </div>
        <section aria-labelledby="spend-title" className={cardClass}>
          <h2 id="spend-title" className="sr-only">
            Spend per day
          </h2>
          <SpendChart series={spend} />
        </section>
      </div>
      <LatestCalls account={options ? (selected ?? undefined) : undefined} />
    </div>
  );
}
