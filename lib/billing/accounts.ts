import { asc, eq, sql } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { ownGroup, reachCondition, reachOf, reaches, type Reach } from "@/lib/auth/reach";
import { queryRows, type Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { microsToNumber } from "@/lib/money/micros";
import type { Account, AccountList, Balance } from "./schemas";

type GroupRow = typeof billingGroups.$inferSelect;

const accountColumns = {
  id: billingGroups.id,
  name: billingGroups.name,
  balanceMicros: billingGroups.balanceMicros,
  currency: billingGroups.currency,
  disabled: billingGroups.disabled,
  parentId: billingGroups.parentId,
};
type AccountRow = Pick<GroupRow, keyof typeof accountColumns>;

/**
 * An account as a caller reads it. Its parent is named only within the caller's reach: a reseller's customer sees
 * null where its reseller's id would be, as for anything out of reach (docs/contract.md §21).
 */
function toAccount(row: AccountRow, reach: Reach): Account {
  return {
    id: row.id,
    name: row.name,
    balance: microsToNumber(row.balanceMicros),
    currency: row.currency,
    disabled: row.disabled,
    parentId: row.parentId !== null && reaches(reach, row.parentId) ? row.parentId : null,
  };
}

/** Raised for platform keys on endpoints that work on one group (docs/contract.md §3). */
export function billingGroupRequired(endpoint: string): ApiError {
  return new ApiError(
    "billing_group_required",
    `${endpoint} needs a key bound to a billing group. A platform key reads a group's balance with GET /v1/accounts/{id} (list them with GET /v1/accounts).`,
  );
}

/** The billing groups a key may see: a platform key every group, a bound key its own. */
export async function listAccounts(db: Executor, principal: Principal): Promise<AccountList> {
  const reach = reachOf(principal);
  const rows = await db
    .select(accountColumns)
    .from(billingGroups)
    .where(reachCondition(reach, billingGroups.id))
    .orderBy(asc(billingGroups.name), asc(billingGroups.id));
  return { accounts: rows.map((row) => toAccount(row, reach)) };
}

/** One group the key may see; 404 for unknown and for other groups alike, so existence does not leak. */
export async function getAccount(db: Executor, principal: Principal, id: string): Promise<Account> {
  // Ids are `bg_` + base32; anything else (NUL bytes included) never reaches the database.
  const wellFormed = /^[A-Za-z0-9_-]{1,64}$/.test(id);
  const reach = reachOf(principal);
  const visible = reaches(reach, id);
  const [row] =
    visible && wellFormed ? await db.select(accountColumns).from(billingGroups).where(eq(billingGroups.id, id)) : [];
  if (!row) throw new ApiError("not_found", `No account with id ${JSON.stringify(id.slice(0, 64))}.`);
  return toAccount(row, reach);
}

/** GET /v1/balances: the balance of the key's own group. */
export async function getBalance(db: Executor, principal: Principal): Promise<Balance> {
  const group = ownGroup(reachOf(principal));
  if (group === null) throw billingGroupRequired("GET /v1/balances");
  const [row] = await db.select(accountColumns).from(billingGroups).where(eq(billingGroups.id, group));
  // A bound key's group is deleted only with the key (cascade); be explicit anyway.
  if (!row) throw new ApiError("not_found", "The key's billing group no longer exists.");
  return {
    billingGroupId: row.id,
    balance: microsToNumber(row.balanceMicros),
    currency: row.currency,
    disabled: row.disabled,
    // Only a yes or no: the tier's id and figures are its own (§21). A root account reads nothing more and has none.
    ...(row.parentId !== null ? { providerOnHold: await ancestorOnHold(db, row.parentId) } : {}),
  };
}

/**
 * Whether an ancestor from `parentId` up blocks the account's calls: ancestor_tiers (migration 0034), the one copy of
 * the condition authorize_state refuses on, read without locks.
 */
async function ancestorOnHold(db: Executor, parentId: string): Promise<boolean> {
  const [r] = await queryRows<{ held: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(ancestor_tiers(${parentId})) t
          WHERE t->>'reason' IS NOT NULL) AS held`,
  );
  return r?.held === true;
}
