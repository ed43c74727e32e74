import type { Metadata } from "next";
import { AlertsManager } from "@/components/alerts/alerts-manager";
import { isPlatform, ownGroup, reachOf } from "@/lib/auth/reach";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Alerts" };

const ACCOUNT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Low-balance thresholds and webhook endpoints (GET/PUT /v1/alert-thresholds, /v1/webhook-endpoints from the
 * browser): sessions with `alerts:write` only. A platform session works on the account it picked (`?account=`).
 */
export default async function AlertsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, params } = await requirePortalPage(PORTAL_PAGES.alerts, searchParams);
  const picked = typeof params.account === "string" && ACCOUNT.test(params.account) ? params.account : null;
  // A group's session manages its own account; a platform session the one it picked.
  const reach = reachOf(session);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Alerts</h1>
        <p className="text-sm text-slate-600">
          Be told when the balance runs low: thresholds, and webhook endpoints your systems receive signed events on.
          Send a test event and follow every delivery attempt.
        </p>
      </div>
      <AlertsManager account={ownGroup(reach) ?? picked} platform={isPlatform(reach)} />
    </div>
  );
}
