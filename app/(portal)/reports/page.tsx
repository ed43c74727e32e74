import type { Metadata } from "next";
import { Suspense } from "react";
import { UsageReport } from "@/components/reports/usage-report";
import { getDb } from "@/lib/db/client";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Reports" };

/**
 * Usage summary (GET /v1/usage, fetched by the browser with the session cookie): the API's one
 * serialiser decides whether cost figures exist, so this page's HTML and RSC payload carry none.
 */
export default async function ReportsPage() {
  const { session, principal } = await requirePortalSession("/reports");
  const accounts = await accountOptions(await getDb(), principal);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Reports</h1>
        <p className="text-sm text-slate-600">
          Calls, billed minutes and spend, grouped as you choose. Unrated calls are counted but add nothing to spend.
        </p>
      </div>
      <Suspense>
        <UsageReport canReadCost={session.canReadCost} accounts={accounts} />
      </Suspense>
    </div>
  );
}
