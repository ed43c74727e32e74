import { sql } from "drizzle-orm";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros } from "@/lib/money/micros";
import { toMinorUnits } from "./provider";
import { resellerNameOf } from "@/lib/billing/reseller-name";
import { paysItsReseller } from "./paid-by-reseller";
import { topUpLimitsMicros } from "./top-up-limits";

export interface AutoRechargeSetting {
  /** Below this balance a charge is queued. */
  thresholdMicros: bigint;
  /** What is charged to the saved card, within the top-up bounds. */
  amountMicros: bigint;
}

export interface AutoRechargeState {
  setting: AutoRechargeSetting | null;
  currency: string;
  /** A card saved by an online top-up (what auto-recharge charges). */
  cardSaved: boolean;
  lastCharge: {
    status: "pending" | "succeeded" | "failed";
    amountMicros: bigint;
    at: Date;
    error: string | null;
  } | null;
}

/** A group's auto-recharge setting, whether a card is saved, and its latest charge. Undefined: no such group. */
export async function readAutoRecharge(db: Db, groupId: string): Promise<AutoRechargeState | undefined> {
  const [row] = await queryRows<{
    currency: string;
    threshold: string | null;
    amount: string | null;
    card: string | null;
  }>(
    db,
    sql`SELECT trim(g.currency) AS currency, s.threshold_micros::text AS threshold, s.amount_micros::text AS amount,
               c.payment_method_id AS card
        FROM billing_groups g
        LEFT JOIN auto_recharge_settings s ON s.billing_group_id = g.id
        LEFT JOIN payment_customers c ON c.billing_group_id = g.id
        WHERE g.id = ${groupId}`,
  );
  if (!row) return undefined;
  const [last] = await queryRows<{
    status: "pending" | "succeeded" | "failed";
    amount: string;
    at: Date | string;
    last_error: string | null;
  }>(
    db,
    sql`SELECT status, amount_micros::text AS amount, coalesce(finished_at, created_at) AS at, last_error
        FROM auto_recharge_charges WHERE billing_group_id = ${groupId} ORDER BY created_at DESC, id LIMIT 1`,
  );
  return {
    currency: row.currency,
    setting:
      row.threshold === null ? null : { thresholdMicros: BigInt(row.threshold), amountMicros: BigInt(row.amount ?? 0) },
    cardSaved: row.card !== null,
    lastCharge: last
      ? { status: last.status, amountMicros: BigInt(last.amount), at: new Date(last.at), error: last.last_error }
      : null,
  };
}

/**
 * Sets (or with null, turns off) a group's auto-recharge, audited as `auto_recharge.updated` in the same
 * transaction. The amount is a top-up's (within TOPUP_MIN and TOPUP_MAX, exact in the currency). A group whose
 * balance is already below the new threshold is charged at its next balance movement (the crossing trigger sees the
 * setting as not crossed yet).
 */
export async function setAutoRecharge(
  db: Db,
  groupId: string,
  setting: AutoRechargeSetting | null,
  by: { actor: AuditActor; address: string | null },
): Promise<AutoRechargeSetting | null> {
  return db.transaction(async (tx) => {
    const [group] = await queryRows<{ currency: string }>(
      tx,
      sql`SELECT trim(currency) AS currency FROM billing_groups WHERE id = ${groupId} FOR UPDATE`,
    );
    if (!group) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
    const reseller = setting ? await resellerNameOf(tx, groupId) : null;
    if (reseller !== null) throw paysItsReseller(reseller);
    const [before] = await queryRows<{ threshold: string; amount: string }>(
      tx,
      sql`SELECT threshold_micros::text AS threshold, amount_micros::text AS amount
          FROM auto_recharge_settings WHERE billing_group_id = ${groupId}`,
    );
    if (setting) {
      const limits = topUpLimitsMicros();
      if (setting.amountMicros < limits.min || setting.amountMicros > limits.max)
        throw new ApiError("invalid_request_body", "The recharge amount is out of bounds.", [
          {
            param: "amount",
            message: `must be between ${formatMicros(limits.min)} and ${formatMicros(limits.max)} ${group.currency}`,
          },
        ]);
      try {
        toMinorUnits(setting.amountMicros, group.currency);
      } catch {
        throw new ApiError("invalid_request_body", "The recharge amount has too many decimals.", [
          { param: "amount", message: `has more decimals than ${group.currency} has` },
        ]);
      }
      await tx.execute(sql`INSERT INTO auto_recharge_settings (billing_group_id, threshold_micros, amount_micros, crossed)
                           VALUES (${groupId}, ${setting.thresholdMicros.toString()}::bigint,
                                   ${setting.amountMicros.toString()}::bigint, false)
                           ON CONFLICT (billing_group_id) DO UPDATE SET threshold_micros = excluded.threshold_micros,
                             amount_micros = excluded.amount_micros, crossed = false, updated_at = now()`);
    } else {
      await tx.execute(sql`DELETE FROM auto_recharge_settings WHERE billing_group_id = ${groupId}`);
    }
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "auto_recharge.updated",
      billingGroupId: groupId,
      targetType: "account",
      targetId: groupId,
      address: by.address,
      before: before
        ? { threshold: formatMicros(BigInt(before.threshold)), amount: formatMicros(BigInt(before.amount)) }
        : { enabled: false },
      after: setting
        ? {
            threshold: formatMicros(setting.thresholdMicros),
            amount: formatMicros(setting.amountMicros),
            currency: group.currency,
          }
        : { enabled: false },
    });
    return setting;
  });
}
