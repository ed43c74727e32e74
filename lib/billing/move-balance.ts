import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros } from "@/lib/money/micros";
import { isBoundedAmount, microsToNumber } from "@/lib/money/micros";
import { toAccountDetail } from "./account-detail";
import { outOfBoundError } from "./balance-bound";
import type { ChangeContext } from "./change-context";
import { getBillingGroup } from "./groups";
import { BalanceRefusedError, moveBalances } from "./ledger";
import type { BalanceMovement } from "./provisioning-schemas";

export interface BalanceMovementInput {
  kind: "topup" | "adjustment";
  /** Signed micro-units: a top-up is positive, an adjustment either way but not zero. */
  amountMicros: bigint;
  description: string;
}

/**
 * Moves an account's balance (POST /v1/accounts/{id}/top-ups and /adjustments, `groups topup` and `groups adjust`): the
 * balance change and its ledger entry (moveBalances, lib/billing/ledger.ts) and the audit event `account.topped_up` or
 * `account.adjusted`, in one transaction. The balance changes in SQL (`balance + amount`), so concurrent debits and
 * movements all count. 404 for an unknown account; 422 naming `amount` past the bound of balances (balance-bound.ts).
 */
export async function moveBalance(
  db: Db,
  accountId: string,
  movement: BalanceMovementInput,
  by: ChangeContext,
): Promise<BalanceMovement> {
  if (movement.kind === "topup" ? movement.amountMicros <= 0n : movement.amountMicros === 0n) {
    throw new RangeError(movement.kind === "topup" ? "a top-up must be positive" : "an adjustment must not be zero");
  }
  if (!isBoundedAmount(movement.amountMicros)) throw outOfBoundError("amount");
  return db.transaction(async (tx) => {
    const moved = await moveBalances(
      tx,
      [
        {
          billingGroupId: accountId,
          kind: movement.kind,
          amountMicros: movement.amountMicros,
          callId: null,
          description: movement.description,
        },
      ],
      { withinBound: true },
    ).catch((error: unknown) => {
      if (!(error instanceof BalanceRefusedError)) throw error;
      if (error.reason === "past_bound") throw outOfBoundError("balance");
      throw new ApiError("not_found", `No account with id ${JSON.stringify(accountId.slice(0, 64))}.`);
    });
    const [entry] = moved.entries;
    // The row as the movement left it (locked by the UPDATE): the answer's account.
    const group = (await getBillingGroup(tx, accountId))!;
    const account = toAccountDetail(group);
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: movement.kind === "topup" ? "account.topped_up" : "account.adjusted",
      billingGroupId: accountId,
      targetType: "account",
      targetId: accountId,
      address: by.address,
      before: { balance: formatMicros(group.balanceMicros - movement.amountMicros) },
      after: {
        balance: formatMicros(group.balanceMicros),
        amount: formatMicros(movement.amountMicros),
        description: movement.description,
        ledgerEntryId: entry.id,
      },
    });
    return {
      id: entry.id,
      kind: movement.kind,
      amount: microsToNumber(movement.amountMicros),
      description: movement.description,
      createdAt: entry.createdAt.toISOString(),
      account,
    };
  });
}
