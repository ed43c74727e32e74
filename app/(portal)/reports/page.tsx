import type { Metadata } from "next";
import { Suspense } from "react";
import { UsageReport } from "@/components/reports/usage-report";
import { getDb } from "@/lib/db/client";
import { usageCostViewOf } from "@/lib/auth/cost-view";
import { accountTimeZones } from "@/lib/portal/account-zones";
import { portalNames } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Reports" };

/**
 * Usage summary (GET /v1/usage, fetched by the browser with the session cookie): the API's one
 * serialiser decides whether cost figures exist, so this page's HTML and RSC payload carry none.
 * Supplier names come only to cost sessions (portalNames).
 */
export default async function ReportsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { principal } = await requirePortalPage(PORTAL_PAGES.reports, searchParams);
  const db = await getDb();
  const [names, zones] = await Promise.all([portalNames(db, principal), accountTimeZones(db, principal)]);
  // The operator's figures, a reseller's own (its revenue from its customers, buy cost and margin), or spend only.
  const costView = usageCostViewOf(principal).kind;
  const withCost = costView !== "none";
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Reports</h1>
        <p className="text-sm text-slate-600">
          Calls, billed minutes and {withCost ? "revenue, buy cost and margin" : "spend"}, grouped as you choose; this
          month unless you pick other dates. Days and months are the account&apos;s own, in its time zone (over every
          account: UTC). Unrated calls are counted but add nothing to {withCost ? "revenue" : "spend"}.
          {costView === "tier"
            ? " Revenue is what your customers pay you, buy cost what you pay for their calls; your own calls are counted but bring no revenue."
            : ""}
        </p>
      </div>
      <Suspense>
        <UsageReport
          costView={costView}
          accounts={names.accountOptions}
          suppliers={names.suppliers}
          zones={zones}
          ownAccount={names.accountOptions ? null : principal.billingGroupId}
        />
      </Suspense>
    </div>
  );
}
