import type { Metadata } from "next";
import { RateCalculator } from "@/components/rates/rate-calculator";
import { Card } from "@/components/ui/card";
import { getDb } from "@/lib/db/client";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Rates" };

export default async function RatesPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.rates, searchParams);
  const destination =
    typeof params.destination === "string" && /^\+?\d{1,32}$/.test(params.destination) ? params.destination : "";
  const seconds = typeof params.seconds === "string" && /^\d{1,6}$/.test(params.seconds) ? Number(params.seconds) : 60;
  const account = typeof params.account === "string" ? params.account : undefined;
  // A platform key has no rate card of its own: it picks the account whose card to look up.
  const accounts = await accountOptions(await getDb(), principal);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Rate calculator</h1>
        <p className="text-sm text-slate-600">
          {accounts
            ? "The rate an account pays for a destination, and what a call of a given length costs."
            : "The rate your account pays for a destination, and what a call of a given length costs."}
          {session.canReadOperatorCost ? " With each supplier's buy rate and the margin left." : null}
        </p>
      </div>
      {accounts && accounts.length === 0 ? (
        <Card role="note" className="text-sm text-slate-600">
          No billing groups exist yet, so there is no rate card to look up.
        </Card>
      ) : (
        <RateCalculator
          initialDestination={destination}
          initialSeconds={seconds}
          accounts={accounts}
          initialAccount={account}
          canReadCost={session.canReadOperatorCost}
        />
      )}
    </div>
  );
}
