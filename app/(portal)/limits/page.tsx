import type { Metadata } from "next";
import { LimitsManager } from "@/components/limits/limits-manager";
import { reachOf } from "@/lib/auth/reach";
import { getDb } from "@/lib/db/client";
import { providedAccount } from "@/lib/portal/console";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Limits" };

/**
 * An account's call and spend limits, their live state and the calls they refused (GET /v1/limits, GET
 * /v1/authorizations/refusals from the browser): the account's people. Changing a layer takes `limits:write`.
 * A platform session picks the account with the switcher (`?account=`), else the first; a reseller names a customer.
 */
export default async function LimitsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.limits, searchParams);
  const options = await accountOptions(await getDb(), principal);
  const picked = options ? (options.find((a) => a.id === params.account)?.id ?? options[0]?.id ?? null) : null;
  // A reseller writes its customer's provider layer (docs/contract.md "Limits"), named from its console.
  const customer = providedAccount(reachOf(principal), params.account);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Limits</h1>
        <p className="text-sm text-slate-600">
          Calls at once, calls per second, spend per day and month, destinations and velocity: each call the switch asks
          to authorize is refused when it would break one.
        </p>
      </div>
      <LimitsManager
        account={customer ?? picked}
        platform={options !== undefined || customer !== null}
        provider={customer !== null}
        accounts={options}
        canWrite={session.scopes.includes("limits:write")}
      />
    </div>
  );
}
