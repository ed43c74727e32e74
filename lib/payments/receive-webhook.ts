import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { creditPayment, type CreditOutcome } from "./credit-payment";
import { fromMinorUnits, isInvalidSignature, type PaymentProvider } from "./provider";

export type WebhookOutcome =
  { received: true; action: "credited"; paymentId: string } | { received: true; action: "ignored"; reason: string };

/**
 * A payment provider's webhook (POST /payments/stripe/webhook): the signature is checked on the raw body by the
 * provider's SDK (400 invalid_parameter naming the signature header when it does not hold; nothing changes). A completed and paid Checkout
 * Session credits its group (client_reference_id) with the amount and currency of the verified session, never
 * anything a browser sent, once per session whatever the retries (creditPayment's unique keys); the card it saved
 * becomes the group's card for auto-recharge. Every other event is acknowledged and ignored.
 */
export async function receivePaymentWebhook(
  db: Db,
  provider: PaymentProvider,
  rawBody: string,
  signature: string | null,
): Promise<WebhookOutcome> {
  let event;
  try {
    event = provider.verifyWebhook(rawBody, signature);
  } catch (e) {
    if (isInvalidSignature(e))
      throw new ApiError("invalid_parameter", `The webhook signature does not verify: ${(e as Error).message}`, [
        { param: "stripe-signature", message: "does not verify" },
      ]);
    throw e;
  }
  if (event.type === "ignored") return { received: true, action: "ignored", reason: event.providerType };
  if (!event.paid) return { received: true, action: "ignored", reason: "not paid yet" };
  const groupId = event.billingGroupId;
  if (!groupId) return { received: true, action: "ignored", reason: "no client_reference_id" };
  // The saved card, read before the transaction (a provider call inside it would hold the row locks).
  const paymentMethod = event.paymentIntentId
    ? await provider.savedPaymentMethod(event.paymentIntentId).catch(() => null)
    : null;
  const outcome: CreditOutcome = await db.transaction(async (tx) => {
    const credited = await creditPayment(tx, {
      provider: provider.name,
      source: "checkout",
      reference: event.sessionId,
      eventId: event.eventId,
      billingGroupId: groupId,
      amountMicros: fromMinorUnits(event.amountMinor, event.currency),
      currency: event.currency,
      description: "Online top-up",
      actor: { type: "system", id: null, label: `${provider.name} webhook` },
    });
    if (credited.credited && event.customerId)
      await tx.execute(sql`INSERT INTO payment_customers (billing_group_id, provider, customer_id, payment_method_id)
                           VALUES (${groupId}, ${provider.name}, ${event.customerId}, ${paymentMethod})
                           ON CONFLICT (billing_group_id) DO UPDATE SET provider = excluded.provider,
                             customer_id = excluded.customer_id,
                             payment_method_id = coalesce(excluded.payment_method_id, payment_customers.payment_method_id),
                             updated_at = now()`);
    return credited;
  });
  return outcome.credited
    ? { received: true, action: "credited", paymentId: outcome.paymentId }
    : { received: true, action: "ignored", reason: outcome.reason };
}
