import { asc } from "drizzle-orm";
import { canReadOperatorCost } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import { listAccounts } from "@/lib/billing/accounts";
import type { Executor } from "@/lib/db/client";
import { suppliers } from "@/lib/db/schema";

/**
 * The names of the accounts in the principal's reach, by id: a platform session's every account, a bound session's
 * own one and its subtree's (a reseller's customers), so a customer's page never carries another tenant's name (listAccounts confines to the reach).
 */
export async function accountNames(db: Executor, principal: Principal): Promise<Record<string, string>> {
  const { accounts } = await listAccounts(db, principal);
  return Object.fromEntries(accounts.map((a) => [a.id, a.name]));
}

/**
 * Supplier names by id, for the platform's cost sessions only: a customer's or a reseller's page never carries a
 * supplier name.
 */
export async function supplierNames(db: Executor, principal: Principal): Promise<Record<string, string>> {
  if (!canReadOperatorCost(principal)) return {};
  const rows = await db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).orderBy(asc(suppliers.name));
  return Object.fromEntries(rows.map((s) => [s.id, s.name]));
}
