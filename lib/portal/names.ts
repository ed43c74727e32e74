import "server-only";
import { asc } from "drizzle-orm";
import { listAccounts } from "@/lib/billing/accounts";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { suppliers } from "@/lib/db/schema";

/**
 * Names the portal shows instead of ids. Accounts: only for platform sessions (a bound key has one).
 * Suppliers: only for calls:read_cost sessions, so a customer's page never carries a supplier name.
 */
export async function portalNames(
  db: Executor,
  principal: Principal,
): Promise<{ accounts: Record<string, string>; accountOptions?: { id: string; name: string; currency: string }[]; suppliers: Record<string, string> }> {
  const [accountList, supplierRows] = await Promise.all([
    principal.billingGroupId === null ? listAccounts(db, principal) : null,
    canReadCost(principal) ? db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).orderBy(asc(suppliers.name)) : [],
  ]);
  return {
    accounts: Object.fromEntries((accountList?.accounts ?? []).map((a) => [a.id, a.name])),
    accountOptions: accountList?.accounts.map((a) => ({ id: a.id, name: a.name, currency: a.currency })),
    suppliers: Object.fromEntries(supplierRows.map((s) => [s.id, s.name])),
  };
}
