import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros } from "@/lib/money/micros";
import { resellerNameOf } from "@/lib/billing/reseller-name";
import { paysItsReseller } from "./paid-by-reseller";
import { toMinorUnits, type PaymentProvider } from "./provider";
import { topUpLimitsMicros } from "./top-up-limits";

export interface TopUpRequest {
  billingGroupId: string;
  amountMicros: bigint;
  actor: AuditActor;
  address: string | null;
  /** The portal's origin: the provider sends the customer back there. */
  origin: string;
}

/**
 * Starts an online top-up: the group's customer at the provider (created once, then reused), a hosted Checkout for
 * the amount in the group's currency that saves the card for auto-recharge, and the audit event
 * `payment.checkout_started`. Answers the URL to send the customer to. Nothing is credited here: only the verified
 * webhook credits (receivePaymentWebhook).
 */
export async function startTopUp(db: Db, provider: PaymentProvider, request: TopUpRequest): Promise<{ url: string }> {
  const limits = topUpLimitsMicros();
  const [group] = await queryRows<{ name: string; currency: string; customer_id: string | null }>(
    db,
    sql`SELECT g.name, trim(g.currency) AS currency, c.customer_id FROM billing_groups g
        LEFT JOIN payment_customers c ON c.billing_group_id = g.id AND c.provider = ${provider.name}
        WHERE g.id = ${request.billingGroupId}`,
  );
  if (!group) throw new ApiError("not_found", "No such account.");
  const reseller = await resellerNameOf(db, request.billingGroupId);
  if (reseller !== null) throw paysItsReseller(reseller);
  if (request.amountMicros < limits.min || request.amountMicros > limits.max)
    throw new ApiError("invalid_request_body", "The amount is out of bounds.", [
      {
        param: "amount",
        message: `must be between ${formatMicros(limits.min)} and ${formatMicros(limits.max)} ${group.currency}`,
      },
    ]);
  let amountMinor: bigint;
  try {
    amountMinor = toMinorUnits(request.amountMicros, group.currency);
  } catch {
    throw new ApiError("invalid_request_body", "The amount has too many decimals.", [
      { param: "amount", message: `has more decimals than ${group.currency} has` },
    ]);
  }
  const customerId = await provider.ensureCustomer({ id: request.billingGroupId, name: group.name }, group.customer_id);
  const origin = request.origin.replace(/\/$/, "");
  const session = await provider.createCheckout({
    billingGroupId: request.billingGroupId,
    customerId,
    amountMinor,
    currency: group.currency,
    description: `Callbook balance top-up (${group.name})`,
    successUrl: `${origin}/?topup=success`,
    cancelUrl: `${origin}/?topup=cancelled`,
    idempotencyKey: `checkout-${randomUUID()}`,
  });
  await db.transaction(async (tx) => {
    if (customerId !== group.customer_id)
      await tx.execute(sql`INSERT INTO payment_customers (billing_group_id, provider, customer_id)
                           VALUES (${request.billingGroupId}, ${provider.name}, ${customerId})
                           ON CONFLICT (billing_group_id) DO UPDATE SET provider = excluded.provider,
                             customer_id = excluded.customer_id, payment_method_id = NULL, updated_at = now()`);
    await recordAuditEvent(tx, {
      actor: request.actor,
      action: "payment.checkout_started",
      billingGroupId: request.billingGroupId,
      targetType: "checkout_session",
      targetId: session.id,
      address: request.address,
      after: { amount: formatMicros(request.amountMicros), currency: group.currency, provider: provider.name },
    });
  });
  return { url: session.url };
}
