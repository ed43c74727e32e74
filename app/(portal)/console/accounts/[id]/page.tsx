import type { Metadata } from "next";
import Link from "next/link";
import { BalanceForm, CreditLimitForm, DisableToggle } from "@/components/console/account-actions";
import { AccountPeople } from "@/components/console/account-people";
import { describeRole, ROLES } from "@/lib/auth/roles";
import { AccountSummary } from "@/components/console/account-summary";
import { BillingDetailsForm } from "@/components/console/billing-details-form";
import { ApiKeysManager } from "@/components/keys/api-keys-manager";
import {
  accountPeople,
  consoleAccount,
  ownBillingDetails,
  ownConsoleAccount,
  requireConsoleReach,
} from "@/lib/portal/console";

export const metadata: Metadata = { title: "Account" };

/** One account in the operator console: its details, money, credit limit, status and API keys; links to its decks and alerts. */
export default async function ConsoleAccountPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { session, reach } = await requireConsoleReach(`/console/accounts/${encodeURIComponent(id)}`);
  const { account, provisionable } = await consoleAccount(reach, id);
  // A reseller's top-ups and adjustments move its own money (docs/contract.md "Reseller tiers").
  const funder = await ownConsoleAccount(reach);
  // On its own account's page: the billing details its customers' invoices carry.
  const details = provisionable ? null : await ownBillingDetails(reach);
  // Its people, and an invitation into it, where the session provisions it (requireProvisioningOf's rule).
  const people = provisionable ? await accountPeople(account.id) : null;
  const carried = `?account=${encodeURIComponent(account.id)}`;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <Link href="/console/accounts" className="text-sm text-brand-700 underline">
          All accounts
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight">{account.name}</h1>
        <nav aria-label="This account elsewhere" className="mt-1 flex flex-wrap gap-3 text-sm">
          <Link href={`/${carried}`} className="text-brand-700 underline">
            Dashboard
          </Link>
          <Link href={`/calls${carried}`} className="text-brand-700 underline">
            Calls
          </Link>
          <Link href={`/invoices${carried}`} className="text-brand-700 underline">
            Invoices
          </Link>
          <Link href={`/rates${carried}`} className="text-brand-700 underline">
            Rates
          </Link>
          {session.scopes.includes("rates:write") ? (
            <Link href={`/rate-decks${carried}`} className="text-brand-700 underline">
              Rate decks
            </Link>
          ) : null}
          <Link href={`/limits${carried}`} className="text-brand-700 underline">
            Limits
          </Link>
          {session.scopes.includes("alerts:write") ? (
            <Link href={`/alerts${carried}`} className="text-brand-700 underline">
              Thresholds and webhooks
            </Link>
          ) : null}
        </nav>
      </div>
      <AccountSummary account={account} />
      {provisionable ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <BalanceForm account={account} kind="topup" funder={funder} />
          <BalanceForm account={account} kind="adjustment" funder={funder} />
          <CreditLimitForm key={account.creditLimit} account={account} />
          <DisableToggle account={account} />
        </div>
      ) : (
        <>
          <p className="text-sm text-slate-600" data-testid="own-account-note">
            This is your own account: your provider tops it up and sets its credit limit. Your customers&apos; top-ups
            come out of its balance.
          </p>
          {details ? <BillingDetailsForm details={details} accountName={account.name} /> : null}
        </>
      )}
      {people ? (
        <AccountPeople
          account={account}
          people={people}
          described={ROLES.map((role) => ({ role, can: describeRole(role) }))}
        />
      ) : null}
      <section aria-labelledby="account-keys" className="flex flex-col gap-2">
        <h2 id="account-keys" className="text-lg font-semibold">
          API keys of this account
        </h2>
        <ApiKeysManager scopes={session.scopes} canWrite={session.scopes.includes("keys:write")} account={account.id} />
      </section>
    </div>
  );
}
