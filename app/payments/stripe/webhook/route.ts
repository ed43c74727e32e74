import { stripeWebhookResponse } from "@/lib/payments/webhook-response";

// POST /payments/stripe/webhook: Stripe's events (signature checked on the raw body; lib/payments/webhook-response.ts).
export async function POST(request: Request): Promise<Response> {
  return stripeWebhookResponse(request);
}
