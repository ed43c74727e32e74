import { stripeSettings } from "@/lib/config/env";
import { processSingleton } from "@/lib/runtime/process-singleton";
import type { PaymentProvider } from "./provider";
import { stripeProvider } from "./stripe-provider";

/** The configured payment provider (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET), else null: payments are off. */
export function configuredPaymentProvider(): PaymentProvider | null {
  return processSingleton("payment-provider", () => {
    const stripe = stripeSettings();
    return stripe ? stripeProvider(stripe) : null;
  });
}
