import { eq } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { isPlatform, requireProvisioningOf, type Reach } from "@/lib/auth/reach";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { billingGroups } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { toAccountDetail } from "./account-detail";
import type { ChangeContext } from "./change-context";
import { accountcodeIsTheOperators, accountcodeTaken } from "./create-account";
import type { BillingGroup } from "./groups";

export interface AccountChanges {
  name?: string;
  creditLimitMicros?: bigint;
  /** null removes it. */
  accountcode?: string | null;
  /** Disabled by the operator (docs/contract.md §2: `disabled` also follows the balance and credit limit). */
  disabled?: boolean;
}

/**
 * Changes an account's name, credit limit, accountcode or operator flag (PATCH /v1/accounts/{id}, `groups update`,
 * `groups disable`/`enable`) with its audit event `account.updated` (before and after) in one transaction. 404 for an
 * unknown account, 409 naming `accountcode` when another account has it.
 */
export async function updateAccount(
  db: Db,
  accountId: string,
  changes: AccountChanges,
  by: ChangeContext,
): Promise<BillingGroup> {
  try {
    return await db.transaction(async (tx) => {
      const [before] = await tx.select().from(billingGroups).where(eq(billingGroups.id, accountId)).for("update");
      if (!before) throw new ApiError("not_found", `No account with id ${JSON.stringify(accountId.slice(0, 64))}.`);
      const set = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.creditLimitMicros !== undefined ? { creditLimitMicros: changes.creditLimitMicros } : {}),
        ...(changes.accountcode !== undefined ? { accountcode: changes.accountcode } : {}),
        ...(changes.disabled !== undefined ? { disabledByOperator: changes.disabled } : {}),
      };
      if (Object.keys(set).length === 0) return before;
      const [after] = await tx.update(billingGroups).set(set).where(eq(billingGroups.id, accountId)).returning();
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "account.updated",
        billingGroupId: accountId,
        targetType: "account",
        targetId: accountId,
        address: by.address,
        before: toAccountDetail(before),
        after: toAccountDetail(after),
      });
      return after;
    });
  } catch (error) {
    if (isUniqueViolation(error, "billing_groups_accountcode_key")) throw accountcodeTaken(changes.accountcode);
    throw error;
  }
}

/**
 * PATCH /v1/accounts/{id} as the caller may make it: the platform any account; a reseller its subtree's customers
 * (requireProvisioningOf), their name, credit limit and disabled flag, not the accountcode (the operator's switch
 * routes CDRs by it: 403 naming it).
 */
export async function updateAccountAs(
  db: Db,
  reach: Reach,
  accountId: string,
  changes: AccountChanges,
  by: ChangeContext,
): Promise<BillingGroup> {
  requireProvisioningOf(reach, accountId, "change");
  if (!isPlatform(reach) && changes.accountcode !== undefined) throw accountcodeIsTheOperators();
  return updateAccount(db, accountId, changes, by);
}
