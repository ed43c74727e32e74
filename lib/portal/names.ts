import "server-only";
import { asc } from "drizzle-orm";
import { listAccounts } from "@/lib/billing/accounts";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { suppliers } from "@/lib/db/schema";

export interface AccountOption {
  id: string;
  name: string;
  currency: string;
}

/** The accounts a platform session picks from (by name); undefined for a bound key, which has one. */
export async function accountOptions(db: Executor, principal: Principal): Promise<AccountOption[] | undefined> {
  if (principal.billingGroupId !== null) return undefined;
  const { accounts } = await listAccounts(db, principal);
  return accounts.map((a) => ({ id: a.id, name: a.name, currency: a.currency }));
}

/**
 * Names the portal shows instead of ids. Accounts: only for platform sessions (a bound key has one).
 * Suppliers: only for calls:read_cost sessions, so a customer's page never carries a supplier name.
 */
export async function portalNames(
  db: Executor,
  principal: Principal,
): Promise<{ accounts: Record<string, string>; accountOptions?: AccountOption[]; suppliers: Record<string, string> }> {
  const [options, supplierRows] = await Promise.all([
    accountOptions(db, principal),
    canReadCost(principal) ? db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).orderBy(asc(suppliers.name)) : [],
  ]);
  return {
    accounts: Object.fromEntries((options ?? []).map((a) => [a.id, a.name])),
    accountOptions: options,
    suppliers: Object.fromEntries(supplierRows.map((s) => [s.id, s.name])),
  };
}
