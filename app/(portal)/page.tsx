import type { Metadata } from "next";
import { BalanceWidget } from "@/components/balance/balance-widget";
import { LatestCalls } from "@/components/dashboard/latest-calls";
import { SpendChart } from "@/components/dashboard/spend-chart";
import { SpendSummary } from "@/components/dashboard/spend-summary";
import { getDb } from "@/lib/db/client";
import { requirePortalSession } from "@/lib/portal/session";
import { spendPerDay } from "@/lib/portal/spend-per-day";

export const metadata: Metadata = { title: "Dashboard" };

export default async function DashboardPage() {
  const { session, principal } = await requirePortalSession("/");
  const spend = await spendPerDay(await getDb(), principal);
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">Dashboard</h1>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,22rem)_1fr]">
        <div className="flex flex-col gap-6">
          <BalanceWidget platform={session.billingGroupId === null} />
          <SpendSummary series={spend} />
        </div>
        <section aria-labelledby="spend-title" className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="spend-title" className="sr-only">
            Spend per day
          </h2>
          <SpendChart series={spend} />
        </section>
      </div>
      <LatestCalls />
    </div>
  );
}
