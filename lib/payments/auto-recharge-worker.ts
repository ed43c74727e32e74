import { sql } from "drizzle-orm";
import { DUE_NOW } from "@/lib/db/due-now";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { billingContacts } from "@/lib/billing/billing-contacts";
import { portalBaseUrl } from "@/lib/config/env";
import { queryRows, type Db, type Tx } from "@/lib/db/client";
import { enqueueMail } from "@/lib/mail/outbox";
import { currencyDecimals } from "@/lib/money/currency-decimals";
import { formatMicros } from "@/lib/money/micros";
import { creditPayment } from "./credit-payment";
import { fromMinorUnits, toMinorUnits, type PaymentProvider } from "./provider";
import { startPeriodicTask, type PeriodicTask } from "@/lib/runtime/periodic-task";

// The auto-recharge worker: charges the queued charges (auto_recharge_charges, one per crossing, queued by the
// crossing trigger: lib/payments/triggers.ts) to the group's saved card, off-session. Claims are leases under row
// locks (SKIP LOCKED), so several workers and processes never charge one row at once; should a lease lapse mid-charge,
// the next attempt sends the same idempotency key (it changes only after a definite decline), so the provider answers
// the same PaymentIntent and creditPayment's unique reference credits it once. A failure is retried with exponential
// backoff; after the last attempt the charge fails for good: the webhook event `auto_recharge.failed` (the balance
// alerts' outbox) and a mail to the owner and billing members, in the transaction that marks it failed.

export interface AutoRechargeOptions {
  maxAttempts?: number;
  retryBaseMs?: number;
  retryCapMs?: number;
  leaseMs?: number;
  batch?: number;
}

interface ClaimedCharge {
  id: string;
  billing_group_id: string;
  amount: string;
  currency: string;
  attempts: number;
  declines: number;
  customer_id: string | null;
  payment_method_id: string | null;
}

export interface AutoRechargeRound {
  succeeded: number;
  retried: number;
  failed: number;
}

/** Charges what is due once (a round of the worker). */
export async function runAutoRechargeCharges(
  db: Db,
  provider: PaymentProvider,
  options: AutoRechargeOptions = {},
): Promise<AutoRechargeRound> {
  const { maxAttempts = 4, retryBaseMs = 60_000, retryCapMs = 6 * 3_600_000, leaseMs = 120_000, batch = 20 } = options;
  const round: AutoRechargeRound = { succeeded: 0, retried: 0, failed: 0 };
  const claimed = await queryRows<ClaimedCharge>(
    db,
    sql`WITH claimed AS (
          UPDATE auto_recharge_charges SET leased_until = now() + ${`${leaseMs} milliseconds`}::interval,
                 attempts = attempts + 1
          WHERE id IN (SELECT id FROM auto_recharge_charges
                       WHERE status = 'pending' AND next_attempt_at <= ${DUE_NOW}
                         AND (leased_until IS NULL OR leased_until < now())
                       ORDER BY next_attempt_at, id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
            AND status = 'pending' AND (leased_until IS NULL OR leased_until < now())
          RETURNING id, billing_group_id, amount_micros, currency, attempts, declines)
        SELECT c.id, c.billing_group_id, c.amount_micros::text AS amount, c.currency, c.attempts, c.declines,
               p.customer_id, p.payment_method_id
        FROM claimed c LEFT JOIN payment_customers p ON p.billing_group_id = c.billing_group_id`,
  );
  for (const charge of claimed) {
    const amountMicros = BigInt(charge.amount);
    const result =
      charge.customer_id && charge.payment_method_id
        ? await provider.chargeOffSession({
            billingGroupId: charge.billing_group_id,
            customerId: charge.customer_id,
            paymentMethodId: charge.payment_method_id,
            amountMinor: toMinorUnits(amountMicros, charge.currency),
            currency: charge.currency,
            description: "Callbook auto-recharge",
            idempotencyKey: `${charge.id}-${charge.declines}`,
          })
        : ({ status: "failed", reference: null, reason: "no saved card", definite: true } as const);
    if (result.status === "succeeded") {
      await db.transaction(async (tx) => {
        await creditPayment(tx, {
          provider: provider.name,
          source: "auto_recharge",
          reference: result.reference,
          eventId: null,
          billingGroupId: charge.billing_group_id,
          amountMicros: fromMinorUnits(result.amountMinor, result.currency),
          currency: result.currency,
          description: "Auto-recharge",
          actor: { type: "system", id: null, label: "auto-recharge" },
        });
        await tx.execute(sql`UPDATE auto_recharge_charges SET status = 'succeeded', reference = ${result.reference},
                               finished_at = now(), leased_until = NULL, last_error = NULL
                             WHERE id = ${charge.id} AND status = 'pending'`);
      });
      round.succeeded += 1;
      continue;
    }
    const final = charge.attempts >= maxAttempts || result.reason === "no saved card";
    if (!final) {
      const delay = Math.min(retryBaseMs * 2 ** (charge.attempts - 1), retryCapMs);
      await db.execute(sql`UPDATE auto_recharge_charges SET leased_until = NULL, last_error = ${result.reason},
                             reference = coalesce(${result.reference}, reference),
                             declines = declines + ${result.definite ? 1 : 0},
                             next_attempt_at = now() + ${`${delay} milliseconds`}::interval
                           WHERE id = ${charge.id} AND status = 'pending'`);
      round.retried += 1;
      continue;
    }
    await db.transaction((tx) => failCharge(tx, charge, amountMicros, result.reason));
    round.failed += 1;
  }
  return round;
}

async function failCharge(tx: Tx, charge: ClaimedCharge, amountMicros: bigint, reason: string): Promise<void> {
  const [failed] = await queryRows<{ id: string; threshold: string | null }>(
    tx,
    sql`UPDATE auto_recharge_charges c SET status = 'failed', finished_at = now(), leased_until = NULL,
               last_error = ${reason}
        WHERE c.id = ${charge.id} AND c.status = 'pending'
        RETURNING c.id, (SELECT s.threshold_micros::text FROM auto_recharge_settings s
                         WHERE s.billing_group_id = c.billing_group_id) AS threshold`,
  );
  if (!failed) return;
  // The group hears of it as of its balance alerts: an event in the webhook outbox, for its endpoints.
  await tx.execute(sql`SELECT webhook_event_emit('auto_recharge.failed', g, ${failed.threshold}::bigint)
                       FROM billing_groups g WHERE g.id = ${charge.billing_group_id}`);
  const amount = `${formatMicros(amountMicros, currencyDecimals(charge.currency))} ${charge.currency}`;
  const contacts = await billingContacts(tx, [charge.billing_group_id]);
  await enqueueMail(
    tx,
    contacts.map((c) => ({
      key: `auto-recharge-failed:${charge.id}:${c.userId}`,
      to: c.email,
      subject: `Auto-recharge of ${amount} failed`,
      text:
        `The automatic recharge of ${amount} to your saved card failed after ${charge.attempts} attempts: ${reason}.\n\n` +
        `Top up or update your card in the portal: ${portalBaseUrl()}/\n`,
    })),
  );
  await recordAuditEvent(tx, {
    actor: { type: "system", id: null, label: "auto-recharge" },
    action: "auto_recharge.failed",
    billingGroupId: charge.billing_group_id,
    targetType: "auto_recharge_charge",
    targetId: charge.id,
    address: null,
    after: { amount: formatMicros(amountMicros), currency: charge.currency, attempts: charge.attempts, reason },
  });
}

export type AutoRechargeWorker = PeriodicTask;

/** The worker inside every server process with a configured provider: a round every `intervalMs`. */
export function startAutoRechargeWorker(
  db: Db,
  provider: PaymentProvider,
  options: AutoRechargeOptions & { intervalMs?: number } = {},
): AutoRechargeWorker {
  return startPeriodicTask(
    "auto-recharge round failed",
    () => runAutoRechargeCharges(db, provider, options),
    options.intervalMs ?? 5_000,
  );
}
