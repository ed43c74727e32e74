import type { Metadata } from "next";
import Link from "next/link";
import { NewAccountForm } from "@/components/console/account-actions";
import { currencyChoices, requireConsoleSession } from "@/lib/portal/console";

export const metadata: Metadata = { title: "New account" };

/** A new account (POST /v1/accounts from the browser, with the staff session). */
export default async function NewAccountPage() {
  await requireConsoleSession("/console/accounts/new");
  return (
    <div className="flex flex-col gap-4">
      <div>
        <Link href="/console/accounts" className="text-sm text-brand-700 underline">
          All accounts
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight">New account</h1>
      </div>
      <NewAccountForm currencies={currencyChoices()} />
    </div>
  );
}
