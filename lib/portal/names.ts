import "server-only";
import { eq } from "drizzle-orm";
import { listAccounts } from "@/lib/billing/accounts";
import { canReadOperatorCost } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import { isPlatform, reachOf, reaches } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { accountNames, supplierNames } from "./account-names";
import { billingGroups, suppliers } from "@/lib/db/schema";

export interface AccountOption {
  id: string;
  name: string;
  currency: string;
}

/** The accounts a platform session picks from (by name); undefined for a bound key, which has one. */
export async function accountOptions(db: Executor, principal: Principal): Promise<AccountOption[] | undefined> {
  if (!isPlatform(reachOf(principal))) return undefined;
  const { accounts } = await listAccounts(db, principal);
  return accounts.map((a) => ({ id: a.id, name: a.name, currency: a.currency }));
}

/**
 * Names the portal shows instead of ids. Accounts: those in reach (a customer's own only; the platform's every one,
 * also as options to pick from). Suppliers: only for calls:read_cost sessions, so a customer's page never carries a
 * supplier name.
 */
export async function portalNames(
  db: Executor,
  principal: Principal,
): Promise<{ accounts: Record<string, string>; accountOptions?: AccountOption[]; suppliers: Record<string, string> }> {
  const [options, supplierMap] = await Promise.all([accountOptions(db, principal), supplierNames(db, principal)]);
  return {
    accounts: options ? Object.fromEntries(options.map((a) => [a.id, a.name])) : await accountNames(db, principal),
    accountOptions: options,
    suppliers: supplierMap,
  };
}

/**
 * The names one call's page shows (its account, its supplier), each one row by id: the account when in reach (a
 * customer's own, so its page names it too), the supplier on portalNames' rule.
 */
export async function callNames(
  db: Executor,
  principal: Principal,
  call: { billingGroupId: string; supplierId?: string | null },
): Promise<{ accounts: Record<string, string>; suppliers: Record<string, string> }> {
  const [accountRows, supplierRows] = await Promise.all([
    reaches(reachOf(principal), call.billingGroupId)
      ? db
          .select({ id: billingGroups.id, name: billingGroups.name })
          .from(billingGroups)
          .where(eq(billingGroups.id, call.billingGroupId))
      : [],
    canReadOperatorCost(principal) && call.supplierId
      ? db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).where(eq(suppliers.id, call.supplierId))
      : [],
  ]);
  return {
    accounts: Object.fromEntries(accountRows.map((a) => [a.id, a.name])),
    suppliers: Object.fromEntries(supplierRows.map((s) => [s.id, s.name])),
  };
}
