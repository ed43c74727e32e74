import { currencyDecimals } from "@/lib/money/currency-decimals";

// The payment provider behind online top-ups and auto-recharge (docs/contract.md §20): one small interface, so another
// provider than Stripe is one more implementation. Amounts cross it in the currency's minor units (cents; yen), as
// providers count them; the domain converts to and from micro-units with toMinorUnits / fromMinorUnits.

export interface CheckoutRequest {
  billingGroupId: string;
  /** The provider's customer of the group (ensureCustomer), so the card is saved on it. */
  customerId: string;
  amountMinor: bigint;
  /** ISO 4217, upper case. */
  currency: string;
  description: string;
  successUrl: string;
  cancelUrl: string;
  /** Sent to the provider so a retried request creates one session. */
  idempotencyKey: string;
}

export interface OffSessionCharge {
  billingGroupId: string;
  customerId: string;
  paymentMethodId: string;
  amountMinor: bigint;
  currency: string;
  description: string;
  /** The same key for a retry of an attempt whose outcome is unknown; a new one after a definite decline. */
  idempotencyKey: string;
}

export type ChargeResult =
  | { status: "succeeded"; reference: string; amountMinor: bigint; currency: string }
  /** `definite`: the provider answered (a decline); otherwise the outcome is unknown (network, 5xx). */
  | { status: "failed"; reference: string | null; reason: string; definite: boolean };

/** A verified provider event, reduced to what the domain acts on. */
export type PaymentEvent =
  | {
      type: "checkout.completed";
      eventId: string;
      sessionId: string;
      /** client_reference_id of the session: the group that started it. */
      billingGroupId: string | null;
      /** paid: the money is there (not an asynchronous method still pending). */
      paid: boolean;
      amountMinor: bigint;
      currency: string;
      customerId: string | null;
      paymentIntentId: string | null;
    }
  | { type: "ignored"; eventId: string; providerType: string }
  /** Verified, of a type the domain acts on, but not shaped as the provider documents it (no session, say). */
  | { type: "impossible"; eventId: string; providerType: string; problem: string };

export interface PaymentProvider {
  readonly name: string;
  /** The group's customer at the provider: `existing` when still valid, else a new one. */
  ensureCustomer(group: { id: string; name: string }, existing: string | null): Promise<string>;
  /** A hosted payment page for a one-off payment that also saves the card for off-session charges. */
  createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** The card a completed checkout's payment saved (its PaymentIntent's payment method). */
  savedPaymentMethod(paymentIntentId: string): Promise<string | null>;
  /** Charges a saved card without the customer present (auto-recharge). Never throws for a declined card. */
  chargeOffSession(charge: OffSessionCharge): Promise<ChargeResult>;
  /** Checks the signature of a webhook's raw body; throws InvalidSignatureError when it does not hold. */
  verifyWebhook(rawBody: string, signature: string | null): PaymentEvent;
}

export class InvalidSignatureError extends Error {
  override readonly name = "InvalidSignatureError";
}

/**
 * By name, not instanceof: the provider is a process singleton, possibly made by another bundle of the server (the
 * start hook's) with its own copy of the class.
 */
export function isInvalidSignature(e: unknown): boolean {
  return e instanceof Error && e.name === "InvalidSignatureError";
}

/** Micro-units to the currency's minor units; throws unless exact. */
export function toMinorUnits(micros: bigint, currency: string): bigint {
  const scale = 10n ** BigInt(6 - currencyDecimals(currency));
  if (micros % scale !== 0n) throw new RangeError(`the amount has more decimals than ${currency} has`);
  return micros / scale;
}

export function fromMinorUnits(minor: bigint, currency: string): bigint {
  return minor * 10n ** BigInt(6 - currencyDecimals(currency));
}
