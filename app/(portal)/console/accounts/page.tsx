import type { Metadata } from "next";
import Link from "next/link";
import { AccountsOverview } from "@/components/console/accounts-overview";
import { primaryButtonClass } from "@/components/ui/button";
import { isResellerConsole, requireConsoleSession } from "@/lib/portal/console";
import { returnPathOf } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Accounts" };

/** The console's accounts overview: accounts:write sessions (the platform's, or a reseller's subtree); 404 for anyone else. */
export default async function ConsoleAccountsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await requireConsoleSession(returnPathOf("/console/accounts", await searchParams));
  const reseller = isResellerConsole(session);
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Accounts</h1>
          <p className="text-sm text-slate-600">
            {reseller
              ? "Your account and your customers' (their customers' too), with balance, credit limit, status and spend today and this month. Open a customer to top it up from your own balance or change its credit limit."
              : null}
            {reseller ? null : (
              <>
                Every account with its balance, credit limit, status and spend (sell price of its calls) today and this
                month, each in the account&apos;s own time zone. Sort by any column; open an account to top it up,
                change it or manage its keys.
              </>
            )}
          </p>
        </div>
        <Link href="/console/accounts/new" className={primaryButtonClass({ compact: true })}>
          {reseller ? "New customer" : "New account"}
        </Link>
      </div>
      <AccountsOverview />
    </div>
  );
}
