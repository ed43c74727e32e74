import type { Metadata } from "next";
import { Suspense } from "react";
import { CallLog } from "@/components/calls/call-log";
import { getDb } from "@/lib/db/client";
import { callColumnsFor } from "@/lib/portal/call-columns";
import { portalNames } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Calls" };

export default async function CallsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal } = await requirePortalPage(PORTAL_PAGES.calls, searchParams);
  const names = await portalNames(await getDb(), principal);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
        <p className="text-sm text-slate-600">
          Every completed call, newest first, in the time zone chosen at the top of the page. Select a call for its full
          detail.
        </p>
      </div>
      <Suspense>
        {/* The server decides which columns and names exist: cost columns and supplier names only for cost-scoped sessions. */}
        <CallLog
          columns={callColumnsFor(session)}
          owner={session.keyId}
          accounts={names.accounts}
          accountOptions={names.accountOptions?.map(({ id, name }) => ({ id, name }))}
          suppliers={names.suppliers}
          canReadCost={session.canReadCost}
        />
      </Suspense>
    </div>
  );
}
