import type { Metadata } from "next";
import { AlertsManager } from "@/components/alerts/alerts-manager";
import { isPlatform, ownGroup, reachOf } from "@/lib/auth/reach";
import { getDb } from "@/lib/db/client";
import { accountNames } from "@/lib/portal/account-names";
import { providedAccount } from "@/lib/portal/console";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Alerts" };

/**
 * Low-balance thresholds and webhook endpoints (GET/PUT /v1/alert-thresholds, /v1/webhook-endpoints from the
 * browser): sessions with `alerts:write` only. A platform session picks the account it works on with the account
 * switcher (`?account=`), or none: platform-wide endpoints; a reseller names one of its customers the same way.
 */
export default async function AlertsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.alerts, searchParams);
  const reach = reachOf(session);
  const db = await getDb();
  // Names in reach only: a customer's own account; the platform's every account, which it picks from.
  const [options, names] = await Promise.all([accountOptions(db, principal), accountNames(db, principal)]);
  const picked = options?.find((a) => a.id === params.account)?.id ?? null;
  // A reseller sets its customer's thresholds and endpoints from the customer's console page.
  // The principal's reach: the session's summary carries no subtree.
  const customer = providedAccount(reachOf(principal), params.account);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Alerts</h1>
        <p className="text-sm text-slate-600">
          Be told when the balance runs low: thresholds, and webhook endpoints your systems receive signed events on.
          Send a test event and follow every delivery attempt.
        </p>
      </div>
      <AlertsManager
        account={customer ?? ownGroup(reach) ?? picked}
        platform={isPlatform(reach) || customer !== null}
        accounts={options}
        names={names}
      />
    </div>
  );
}
