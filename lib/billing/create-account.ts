import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { isPlatform, reaches, type Reach } from "@/lib/auth/reach";
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

/** 403: accountcodes route the operator's switch's CDRs, so only the platform sets them. */
export function accountcodeIsTheOperators(): ApiError {
  return new ApiError("insufficient_scope", "Only the operator sets an accountcode: its switch routes CDRs by it.", [
    { param: "accountcode", message: "set by the operator only" },
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

/**
 * POST /v1/accounts as the caller may make it (docs/contract.md "Reseller tiers"): the platform any account; a reseller
 * a customer within its subtree: `parentId` defaults to its own account, one outside its subtree answers 422
 * `unknown_parent` as an absent one does, the currency is the parent's (hence its own). No `openingBalance` (money
 * from nowhere: it tops the new account up from its own balance instead) and no accountcode (the operator's).
 */
export async function createAccountAs(
  db: Db,
  reach: Reach,
  options: CreateBillingGroupOptions,
  by: ChangeContext,
): Promise<BillingGroup> {
  if (isPlatform(reach)) {
    if (options.parentId == null && options.currency === undefined) {
      throw new ApiError("invalid_request_body", "A root account names its currency.", [
        { param: "currency", message: "a root account (no parentId) names its currency" },
      ]);
    }
    return createAccount(db, options, by);
  }
  const parentId = options.parentId ?? reach.own;
  if (!reaches(reach, parentId)) throw parentRefused(new AccountParentError(parentId, "unknown_parent"));
  if (options.openingBalanceMicros !== undefined) {
    throw new ApiError("invalid_request_body", "A reseller funds a new account with a top-up from its own balance.", [
      { param: "openingBalance", message: "only the operator opens an account with a balance; top it up instead" },
    ]);
  }
  if (options.accountcode !== undefined) throw accountcodeIsTheOperators();
  return createAccount(db, { ...options, parentId }, by);
}
