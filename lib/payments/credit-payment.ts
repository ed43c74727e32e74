import { sql } from "drizzle-orm";
import type { AuditActor } from "@/lib/audit/record-audit-event";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { BalanceRefusedError, moveBalances } from "@/lib/billing/ledger";
import { queryRows, type Tx } from "@/lib/db/client";
import { newId } from "@/lib/ids/ids";
import { formatMicros, isBoundedAmount } from "@/lib/money/micros";

export interface ReceivedPayment {
  provider: string;
  source: "checkout" | "auto_recharge";
  /** The provider's payment: a Checkout Session id, a PaymentIntent id. */
  reference: string;
  /** The provider event that reported it (webhooks); null when the charge's own answer did. */
  eventId: string | null;
  billingGroupId: string;
  amountMicros: bigint;
  currency: string;
  description: string;
  actor: AuditActor;
}

export type CreditOutcome =
  | { credited: true; paymentId: string; ledgerEntryId: string; balanceMicros: bigint }
  | { credited: false; reason: "duplicate" | "unknown_group" | "currency_mismatch" };

/**
 * The payment would take the balance past its bound (lib/billing/balance-bound.ts). Thrown, so the caller's
 * transaction rolls back the payments row written before the balance moved.
 */
export class BalanceBoundError extends RangeError {
  override readonly name = "BalanceBoundError";
}

/**
 * Credits a received payment to its group, once, in the caller's transaction: the payments row first (its unique keys
 * on the provider's reference and event id: a retried event, or the same event delivered to two processes at once,
 * finds the row, or waits for the other transaction and then finds it, and credits nothing), then the balance, the
 * ledger receipt (a `topup` entry naming the provider and reference, lib/billing/ledger.ts) and the audit event
 * `payment.received`.
 */
export async function creditPayment(tx: Tx, payment: ReceivedPayment): Promise<CreditOutcome> {
  if (payment.amountMicros <= 0n) throw new RangeError("a payment credits a positive amount");
  if (!isBoundedAmount(payment.amountMicros)) throw new BalanceBoundError("the payment is past the bound of amounts");
  const [group] = await queryRows<{ currency: string }>(
    tx,
    sql`SELECT trim(currency) AS currency FROM billing_groups WHERE id = ${payment.billingGroupId}`,
  );
  if (!group) return { credited: false, reason: "unknown_group" };
  if (group.currency !== payment.currency) return { credited: false, reason: "currency_mismatch" };
  const paymentId = newId("pay");
  const [inserted] = await queryRows<{ id: string }>(
    tx,
    sql`INSERT INTO payments (id, billing_group_id, provider, source, reference, event_id, amount_micros, currency)
        VALUES (${paymentId}, ${payment.billingGroupId}, ${payment.provider}, ${payment.source}, ${payment.reference},
                ${payment.eventId}, ${payment.amountMicros.toString()}::bigint, ${payment.currency})
        ON CONFLICT DO NOTHING RETURNING id`,
  );
  if (!inserted) return { credited: false, reason: "duplicate" };
  const moved = await moveBalances(
    tx,
    [
      {
        billingGroupId: payment.billingGroupId,
        kind: "topup",
        amountMicros: payment.amountMicros,
        callId: null,
        description: `${payment.description} (${payment.provider} ${payment.reference})`,
      },
    ],
    { withinBound: true },
  ).catch((error: unknown) => {
    if (error instanceof BalanceRefusedError)
      throw new BalanceBoundError("the payment would take the balance past its bound");
    throw error;
  });
  const balance = moved.balances.get(payment.billingGroupId)!;
  const [entry] = moved.entries;
  await tx.execute(sql`UPDATE payments SET ledger_entry_id = ${entry.id}::bigint WHERE id = ${paymentId}`);
  await recordAuditEvent(tx, {
    actor: payment.actor,
    action: "payment.received",
    billingGroupId: payment.billingGroupId,
    targetType: "payment",
    targetId: paymentId,
    address: null,
    before: { balance: formatMicros(balance - payment.amountMicros) },
    after: {
      balance: formatMicros(balance),
      amount: formatMicros(payment.amountMicros),
      currency: payment.currency,
      provider: payment.provider,
      source: payment.source,
      reference: payment.reference,
      eventId: payment.eventId,
      ledgerEntryId: entry.id,
    },
  });
  return { credited: true, paymentId, ledgerEntryId: entry.id, balanceMicros: balance };
}
