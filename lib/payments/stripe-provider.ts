import Stripe from "stripe";
import type { StripeSettings } from "@/lib/config/env";
import {
  InvalidSignatureError,
  type ChargeResult,
  type CheckoutRequest,
  type OffSessionCharge,
  type PaymentEvent,
  type PaymentProvider,
} from "./provider";

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === "string" ? value : value.id;

/**
 * Stripe through its official SDK: Checkout Sessions for top-ups, PaymentIntents confirmed off-session for
 * auto-recharge, and `webhooks.constructEvent` for the webhook's signature. STRIPE_API_BASE sets the SDK's
 * host/port/protocol (the tests' local stand-in of Stripe's API).
 */
export function stripeProvider(settings: StripeSettings): PaymentProvider {
  const stripe = new Stripe(settings.secretKey, {
    ...(settings.api ?? {}),
    maxNetworkRetries: 2,
    timeout: 20_000,
  });
  return {
    name: "stripe",

    async ensureCustomer(group, existing) {
      if (existing) {
        const found = await stripe.customers.retrieve(existing).catch(() => null);
        if (found && !("deleted" in found && found.deleted)) return existing;
      }
      const customer = await stripe.customers.create(
        { name: group.name, metadata: { billingGroupId: group.id } },
        { idempotencyKey: `customer-${group.id}-${existing ?? "new"}` },
      );
      return customer.id;
    },

    async createCheckout(request: CheckoutRequest) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: "payment",
          client_reference_id: request.billingGroupId,
          customer: request.customerId,
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency.toLowerCase(),
                unit_amount: Number(request.amountMinor),
                product_data: { name: request.description },
              },
            },
          ],
          payment_intent_data: {
            setup_future_usage: "off_session",
            metadata: { billingGroupId: request.billingGroupId, purpose: "topup" },
          },
          metadata: { billingGroupId: request.billingGroupId, purpose: "topup" },
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (!session.url) throw new Error("Stripe answered a Checkout Session without a URL");
      return { id: session.id, url: session.url };
    },

    async savedPaymentMethod(paymentIntentId) {
      const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
      return idOf(intent.payment_method);
    },

    async chargeOffSession(charge: OffSessionCharge): Promise<ChargeResult> {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: Number(charge.amountMinor),
            currency: charge.currency.toLowerCase(),
            customer: charge.customerId,
            payment_method: charge.paymentMethodId,
            off_session: true,
            confirm: true,
            description: charge.description,
            metadata: { billingGroupId: charge.billingGroupId, purpose: "auto_recharge" },
          },
          { idempotencyKey: charge.idempotencyKey },
        );
        if (intent.status === "succeeded")
          return {
            status: "succeeded",
            reference: intent.id,
            amountMinor: BigInt(intent.amount_received || intent.amount),
            currency: intent.currency.toUpperCase(),
          };
        return { status: "failed", reference: intent.id, reason: `payment ${intent.status}`, definite: true };
      } catch (e) {
        if (e instanceof Stripe.errors.StripeCardError || e instanceof Stripe.errors.StripeInvalidRequestError) {
          const raw = e.raw as { payment_intent?: { id?: string } } | undefined;
          return { status: "failed", reference: raw?.payment_intent?.id ?? null, reason: e.message, definite: true };
        }
        return { status: "failed", reference: null, reason: (e as Error).message, definite: false };
      }
    },

    verifyWebhook(rawBody, signature): PaymentEvent {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? "", settings.webhookSecret);
      } catch (e) {
        throw new InvalidSignatureError((e as Error).message);
      }
      if (typeof event !== "object" || event === null)
        return { type: "impossible", eventId: "", providerType: "", problem: "the event is not a JSON object" };
      // A delayed method (a bank debit) completes the session unpaid and succeeds later: either event credits, once.
      if (event.type !== "checkout.session.completed" && event.type !== "checkout.session.async_payment_succeeded")
        return { type: "ignored", eventId: event.id, providerType: event.type };
      // Signed is not well-formed: a session missing, or an amount that is no whole number of minor units (which
      // BigInt refuses), is reported as such rather than thrown (a 500 Stripe would retry for days).
      const session = (event.data as Partial<typeof event.data> | undefined)?.object;
      const impossible = (problem: string): PaymentEvent => ({
        type: "impossible",
        eventId: String(event.id),
        providerType: event.type,
        problem,
      });
      if (!session || typeof session !== "object") return impossible("the event has no data.object (the session)");
      const amountTotal = session.amount_total ?? 0;
      if (!Number.isSafeInteger(amountTotal)) return impossible("amount_total is not a whole number of minor units");
      return {
        type: "checkout.completed",
        eventId: event.id,
        sessionId: session.id,
        billingGroupId: session.client_reference_id,
        paid: session.payment_status === "paid",
        amountMinor: BigInt(amountTotal),
        currency: (session.currency ?? "").toUpperCase(),
        customerId: idOf(session.customer),
        paymentIntentId: idOf(session.payment_intent),
      };
    },
  };
}
