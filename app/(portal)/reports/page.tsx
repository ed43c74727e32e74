import type { Metadata } from "next";
import { Suspense } from "react";
import { UsageReport } from "@/components/reports/usage-report";
import { getDb } from "@/lib/db/client";
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
  const { session, principal } = await requirePortalPage(PORTAL_PAGES.reports, searchParams);
  const db = await getDb();
  const [names, zones] = await Promise.all([portalNames(db, principal), accountTimeZones(db, principal)]);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Reports</h1>
        <p className="text-sm text-slate-600">
          Calls, billed minutes and {session.canReadOperatorCost ? "revenue, buy cost and margin" : "spend"}, grouped as
          you choose; this month unless you pick other dates. Days and months are the account&apos;s own, in its time
          zone (over every account: UTC). Unrated calls are counted but add nothing to{" "}
          {session.canReadOperatorCost ? "revenue" : "spend"}.
        </p>
      </div>
      <Suspense>
        <UsageReport
          canReadCost={session.canReadOperatorCost}
          accounts={names.accountOptions}
          suppliers={names.suppliers}
          zones={zones}
          ownAccount={names.accountOptions ? null : principal.billingGroupId}
        />
      </Suspense>
    </div>
  );
}
