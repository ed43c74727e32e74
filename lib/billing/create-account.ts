import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { ApiError } from "@/lib/errors/api-error";
import { toAccountDetail } from "./account-detail";
import type { ChangeContext } from "./change-context";
import { AccountParentError, createBillingGroup, type BillingGroup, type CreateBillingGroupOptions } from "./groups";

/** An accountcode already routed to another account: 409 naming the field. */
export function accountcodeTaken(accountcode: string | null | undefined): ApiError {
  return new ApiError("conflict", `The accountcode ${JSON.stringify(accountcode)} belongs to another account.`, [
    { param: "accountcode", message: "already used by another account" },
  ]);
}

/** A parent refused: 422 with its own code, naming the field at fault. */
function parentRefused(error: AccountParentError): ApiError {
  return error.reason === "unknown_parent"
    ? new ApiError("unknown_parent", `No account ${JSON.stringify(error.parentId)} to be the parent.`, [
        { param: "parentId", message: "no such account" },
      ])
    : new ApiError(
        "currency_mismatch",
        `A child account is in its parent's currency: ${error.parentCurrency} (or omit currency to take it).`,
        [{ param: "currency", message: `must be the parent's currency, ${error.parentCurrency}` }],
      );
}

/**
 * Creates a billing group (POST /v1/accounts, `groups create`): the group, its opening balance's ledger entry and the
 * audit event `account.created` in one transaction. A child account (`parentId`) takes its parent's currency when it
 * names none; an unknown parent or another currency is a 422 (unknown_parent, currency_mismatch).
 */
export async function createAccount(
  db: Db,
  options: CreateBillingGroupOptions,
  by: ChangeContext,
): Promise<BillingGroup> {
  try {
    return await db.transaction(async (tx) => {
      const group = await createBillingGroup(tx, options);
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "account.created",
        billingGroupId: group.id,
        targetType: "account",
        targetId: group.id,
        address: by.address,
        after: toAccountDetail(group),
      });
      return group;
    });
  } catch (error) {
    if (error instanceof AccountParentError) throw parentRefused(error);
    if (isUniqueViolation(error, "billing_groups_accountcode_key")) throw accountcodeTaken(options.accountcode);
    throw error;
  }
}
