import type { Metadata } from "next";
import { RateCalculator } from "@/components/rates/rate-calculator";
import { getDb } from "@/lib/db/client";
import { accountOptions } from "@/lib/portal/names";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Rates" };

export default async function RatesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const destination =
    typeof params.destination === "string" && /^\+?\d{1,32}$/.test(params.destination) ? params.destination : "";
  const seconds = typeof params.seconds === "string" && /^\d{1,6}$/.test(params.seconds) ? Number(params.seconds) : 60;
  const account = typeof params.account === "string" ? params.account : undefined;
  const { principal } = await requirePortalSession("/rates");
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
        </p>
      </div>
      {accounts && accounts.length === 0 ? (
        <p role="note" className="rounded-xl border border-slate-200 bg-white p-5 text-sm text-slate-600 shadow-sm">
          No billing groups exist yet, so there is no rate card to look up.
        </p>
      ) : (
        <RateCalculator
          initialDestination={destination}
          initialSeconds={seconds}
          accounts={accounts}
          initialAccount={account}
        />
      )}
    </div>
  );
}
