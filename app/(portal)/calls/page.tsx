import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { answeredQueries } from "@/components/api/answered-queries";
import { CallLog } from "@/components/calls/call-log";
import { getDb } from "@/lib/db/client";
import { callColumnsFor } from "@/lib/portal/call-columns";
import { callLogFirstScreen } from "@/lib/portal/first-screen";
import { portalNames } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Calls" };

export default async function CallsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.calls, searchParams);
  // The first rows are in the page's HTML: the browser's first request would have asked for the same page.
  const [names, firstScreen] = await Promise.all([
    portalNames(await getDb(), principal),
    callLogFirstScreen(principal, params),
  ]);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
        <p className="text-sm text-slate-600">
          Every completed call, newest first, in the time zone chosen at the top of the page. Select a call for its full
          detail.
        </p>
      </div>
      {/* No Suspense boundary here: React outlines a large one (the first rows) and reveals it only once its script
          runs, a throttled while later; the page is dynamic, so useSearchParams needs none. The server decides which
          columns and names exist: cost columns and supplier names only for cost-scoped sessions. */}
      <HydrationBoundary state={answeredQueries(firstScreen)}>
        <CallLog
          columns={callColumnsFor(session)}
          owner={session.keyId}
          accounts={names.accounts}
          accountOptions={names.accountOptions?.map(({ id, name }) => ({ id, name }))}
          suppliers={names.suppliers}
          canReadCost={session.canReadOperatorCost}
        />
      </HydrationBoundary>
    </div>
  );
}
