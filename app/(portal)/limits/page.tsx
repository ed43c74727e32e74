import type { Metadata } from "next";
import { LimitsManager } from "@/components/limits/limits-manager";
import { getDb } from "@/lib/db/client";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Limits" };

/**
 * An account's call and spend limits, their live state and the calls they refused (GET /v1/limits, GET
 * /v1/authorizations/refusals from the browser): the account's people. Changing a layer takes `limits:write`.
 * A platform session picks the account with the switcher (`?account=`), else the first.
 */
export default async function LimitsPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.limits, searchParams);
  const options = await accountOptions(await getDb(), principal);
  const picked = options ? (options.find((a) => a.id === params.account)?.id ?? options[0]?.id ?? null) : null;
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
        account={picked}
        platform={options !== undefined}
        accounts={options}
        canWrite={session.scopes.includes("limits:write")}
      />
    </div>
  );
}
