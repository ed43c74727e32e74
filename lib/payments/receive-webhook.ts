import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { isStorableText } from "@/lib/db/storable-text";
import { ApiError } from "@/lib/errors/api-error";
import { idSchema } from "@/lib/ids/ids";
import { isBoundedAmount } from "@/lib/money/micros";
import { BalanceBoundError, creditPayment, type CreditOutcome } from "./credit-payment";
import { fromMinorUnits, isInvalidSignature, type PaymentEvent, type PaymentProvider } from "./provider";

export type WebhookOutcome =
  | { received: true; action: "credited"; paymentId: string }
  | { received: true; action: "ignored"; reason: string }
  /** A verified event that can never be credited: acknowledged all the same (Stripe stops retrying), and logged. */
  | { received: true; action: "refused"; eventId: string; reason: string };

const groupIdSchema = idSchema("bg", "client_reference_id");
/** Ids of the provider's that reach SQL (payments, payment_customers) or its API. */
const isProviderId = (id: unknown) => typeof id === "string" && id.length > 0 && id.length <= 255 && isStorableText(id);

/** Why a paid checkout event cannot be credited, or null: content no session of ours can have. */
function impossibleContent(event: Extract<PaymentEvent, { type: "checkout.completed" }>): string | null {
  if (!isProviderId(event.eventId) || !isProviderId(event.sessionId)) return "the event or session id is malformed";
  if (event.billingGroupId !== null && !groupIdSchema.safeParse(event.billingGroupId).success)
    return "client_reference_id is not an account id";
  if (!/^[A-Z]{3}$/.test(event.currency)) return "currency is not an ISO 4217 code";
  if (event.amountMinor <= 0n) return "amount_total is not positive";
  if (!isBoundedAmount(fromMinorUnits(event.amountMinor, event.currency))) return "amount_total is past the bound";
  if (event.customerId !== null && !isProviderId(event.customerId)) return "customer is malformed";
  if (event.paymentIntentId !== null && !isProviderId(event.paymentIntentId)) return "payment_intent is malformed";
  return null;
}

/**
 * A payment provider's webhook (POST /payments/stripe/webhook): the signature is checked on the raw body by the
 * provider's SDK (400 invalid_parameter naming the signature header when it does not hold; nothing changes). A completed and paid Checkout
 * Session credits its group (client_reference_id) with the amount and currency of the verified session, never
 * anything a browser sent, once per session whatever the retries (creditPayment's unique keys); the card it saved
 * becomes the group's card for auto-recharge. Every other event is acknowledged and ignored. A verified event whose
 * content is impossible (no session, an amount that is not a positive whole number within the bound, an id no session
 * of ours has) is acknowledged as `refused` and credits nothing: an error would only make Stripe retry it for days.
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
  const refused = (reason: string): WebhookOutcome => ({
    received: true,
    action: "refused",
    eventId: event.eventId,
    reason,
  });
  if (event.type === "impossible") return refused(event.problem);
  if (event.type === "ignored") return { received: true, action: "ignored", reason: event.providerType };
  if (!event.paid) return { received: true, action: "ignored", reason: "not paid yet" };
  const problem = impossibleContent(event);
  if (problem) return refused(problem);
  const groupId = event.billingGroupId;
  if (!groupId) return { received: true, action: "ignored", reason: "no client_reference_id" };
  // The saved card, read before the transaction (a provider call inside it would hold the row locks).
  const paymentMethod = event.paymentIntentId
    ? await provider.savedPaymentMethod(event.paymentIntentId).catch(() => null)
    : null;
  let outcome: CreditOutcome;
  try {
    outcome = await db.transaction(async (tx): Promise<CreditOutcome> => {
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
  } catch (e) {
    // Past the bound of balances: rolled back whole (the payments row too), and refused like impossible content.
    if (e instanceof BalanceBoundError) return refused(e.message);
    throw e;
  }
  return outcome.credited
    ? { received: true, action: "credited", paymentId: outcome.paymentId }
    : { received: true, action: "ignored", reason: outcome.reason };
}
