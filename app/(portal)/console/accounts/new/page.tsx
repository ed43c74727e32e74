import type { Metadata } from "next";
import Link from "next/link";
import { NewAccountForm, NewCustomerForm } from "@/components/console/account-actions";
import { currencyChoices, ownConsoleAccount, parentChoices, requireConsoleReach } from "@/lib/portal/console";

export const metadata: Metadata = { title: "New account" };

/**
 * A new account (POST /v1/accounts from the browser, with the session): the platform's staff open any account; a
 * reseller a customer below its own account or a sub-reseller's, in its own currency (the API decides the same).
 */
export default async function NewAccountPage() {
  const { reach } = await requireConsoleReach("/console/accounts/new");
  const own = await ownConsoleAccount(reach);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <Link href="/console/accounts" className="text-sm text-brand-700 underline">
          All accounts
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight">{own ? "New customer" : "New account"}</h1>
      </div>
      {own ? (
        <NewCustomerForm currency={own.currency} parents={await parentChoices(reach)} />
      ) : (
        <NewAccountForm currencies={currencyChoices()} />
      )}
    </div>
  );
}
