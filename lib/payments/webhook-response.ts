import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { ApiError } from "@/lib/errors/api-error";
import { readBodyText } from "@/lib/http/body";
import { json, problemResponse } from "@/lib/http/json-response";
import { configuredPaymentProvider } from "./configured-provider";
import { receivePaymentWebhook } from "./receive-webhook";

const MAX_EVENT_BYTES = 512 * 1024;

/**
 * POST /payments/stripe/webhook: the raw body and its Stripe-Signature to receivePaymentWebhook. 200 with what was
 * done (a `refused` event, whose content can never be credited, is logged too); 400 problem+json for a signature
 * that does not verify; 404 while payments are not configured; 500/503 for anything else, so Stripe retries (a retry
 * credits nothing twice).
 */
export async function stripeWebhookResponse(request: Request): Promise<Response> {
  const requestId = randomUUID();
  try {
    const provider = configuredPaymentProvider();
    if (!provider || provider.name !== "stripe") throw new ApiError("not_found", "Online payments are not configured.");
    const body = await readBodyText(request, MAX_EVENT_BYTES);
    const outcome = await receivePaymentWebhook(await getDb(), provider, body, request.headers.get("stripe-signature"));
    // Acknowledged, so Stripe stops retrying, but nothing was credited: an operator should look at it.
    if (outcome.action === "refused") {
      const { eventId, reason } = outcome;
      const line = {
        time: new Date().toISOString(),
        event: "payment webhook event refused",
        requestId,
        eventId: eventId.slice(0, 255),
        reason,
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    return json(outcome);
  } catch (e) {
    if (e instanceof ApiError) return problemResponse(e, requestId);
    if (isDatabaseUnavailable(e))
      return problemResponse(new ApiError("unavailable", "The database is unavailable; retry later."), requestId);
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), event: "payment webhook failed", requestId, error: (e as Error).message })}\n`,
    );
    return problemResponse(new ApiError("internal", "The event could not be processed; retry later."), requestId);
  }
}
