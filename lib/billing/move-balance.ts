import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { ownGroup, requireProvisioningOf, type Reach } from "@/lib/auth/reach";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros } from "@/lib/money/micros";
import { isBoundedAmount, microsToNumber } from "@/lib/money/micros";
import { toAccountDetail } from "./account-detail";
import { outOfBoundError } from "./balance-bound";
import type { ChangeContext } from "./change-context";
import { getBillingGroup } from "./groups";
import { BalanceRefusedError, moveBalances, type LedgerEntry } from "./ledger";
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
 *
 * `from`: a reseller moving money within its tree (docs/contract.md "Reseller tiers"): the same amount leaves the
 * reseller's own balance as an `adjustment` entry in the same transaction (both balances in id order, as every
 * movement), refused with 402 `insufficient_funds` when the reseller's headroom does not cover it: balance plus credit
 * limit, less what is open at its tier (its own reservations, its subtree's holds), as authorization reckons it.
 * Without it the money comes from outside (the platform's top-ups, the CLI).
 */
export async function moveBalance(
  db: Db,
  accountId: string,
  movement: BalanceMovementInput,
  by: ChangeContext,
  options: { from?: string } = {},
): Promise<BalanceMovement> {
  if (movement.kind === "topup" ? movement.amountMicros <= 0n : movement.amountMicros === 0n) {
    throw new RangeError(movement.kind === "topup" ? "a top-up must be positive" : "an adjustment must not be zero");
  }
  if (!isBoundedAmount(movement.amountMicros)) throw outOfBoundError("amount");
  const from = options.from;
  if (from === accountId) throw new RangeError("money moves from a reseller to another account");
  return db.transaction(async (tx) => {
    const entries: LedgerEntry[] = [
      {
        billingGroupId: accountId,
        kind: movement.kind,
        amountMicros: movement.amountMicros,
        callId: null,
        description: movement.description,
      },
    ];
    if (from !== undefined) {
      const what = movement.kind === "topup" ? "Top-up of" : "Adjustment of";
      entries.push({
        billingGroupId: from,
        kind: "adjustment",
        amountMicros: -movement.amountMicros,
        callId: null,
        description: `${what} ${accountId}: ${movement.description}`,
      });
    }
    const moved = await moveBalances(tx, entries, {
      withinBound: true,
      withinHeadroom: from === undefined ? [] : [from],
    }).catch((error: unknown) => {
      if (!(error instanceof BalanceRefusedError)) throw error;
      if (error.reason === "past_bound") throw outOfBoundError("balance");
      if (error.reason === "insufficient_funds") throw insufficientFunds(movement.amountMicros);
      throw new ApiError("not_found", `No account with id ${JSON.stringify(accountId.slice(0, 64))}.`);
    });
    const [entry, paid] = moved.entries;
    // The row as the movement left it (locked by the UPDATE): the answer's account.
    const group = (await getBillingGroup(tx, accountId))!;
    const account = toAccountDetail(group);
    const fundedBy =
      from === undefined ? undefined : { accountId: from, ledgerEntryId: paid.id, balance: moved.balances.get(from)! };
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: movement.kind === "topup" ? "account.topped_up" : "account.adjusted",
      billingGroupId: accountId,
      targetType: "account",
      targetId: accountId,
      address: by.address,
      before: {
        balance: formatMicros(group.balanceMicros - movement.amountMicros),
        ...(fundedBy ? { fundedBy: { balance: formatMicros(fundedBy.balance + movement.amountMicros) } } : {}),
      },
      after: {
        balance: formatMicros(group.balanceMicros),
        amount: formatMicros(movement.amountMicros),
        description: movement.description,
        ledgerEntryId: entry.id,
        ...(fundedBy ? { fundedBy: { ...fundedBy, balance: formatMicros(fundedBy.balance) } } : {}),
      },
    });
    return {
      id: entry.id,
      kind: movement.kind,
      amount: microsToNumber(movement.amountMicros),
      description: movement.description,
      createdAt: entry.createdAt.toISOString(),
      account,
      ...(fundedBy ? { fundedBy: { ...fundedBy, balance: microsToNumber(fundedBy.balance) } } : {}),
    };
  });
}

/** 402: the reseller's headroom (balance plus credit limit, less open reservations) does not cover the movement. */
function insufficientFunds(amountMicros: bigint): ApiError {
  const amount = formatMicros(amountMicros < 0n ? -amountMicros : amountMicros);
  return new ApiError(
    "insufficient_funds",
    `Your account's balance plus its credit limit, less what its calls in progress hold, does not cover ${amount}; nothing moved. Top up your own account first.`,
    [{ param: "amount", message: "more than the reseller's balance plus credit limit, less its open reservations" }],
  );
}

/**
 * A top-up or adjustment as the caller may make it (POST /v1/accounts/{id}/top-ups and /adjustments, the console): the
 * platform's money comes from outside; a reseller's from its own balance, for a customer of its subtree only
 * (requireProvisioningOf: its own account 403, another's 404).
 */
export async function moveBalanceAs(
  db: Db,
  reach: Reach,
  accountId: string,
  movement: BalanceMovementInput,
  by: ChangeContext,
): Promise<BalanceMovement> {
  requireProvisioningOf(reach, accountId, movement.kind === "topup" ? "top up" : "adjust");
  return moveBalance(db, accountId, movement, by, { from: ownGroup(reach) ?? undefined });
}
