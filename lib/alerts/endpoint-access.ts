import { desc, eq } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { reachOf, reaches } from "@/lib/auth/reach";
import { changeContextOf, type ChangeContext } from "@/lib/billing/change-context";
import type { Executor } from "@/lib/db/client";
import { webhookEndpoints, webhookSecrets } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import type { WebhookEndpoint } from "./schemas";
import { WebhookTargetError } from "./url-guard";
import { AlertsInputError, type WebhookEndpointInfo } from "./webhooks";

// Who may see and change which endpoints and thresholds (docs/contract.md §18): a caller bound to a billing group
// reaches its own group's only; a platform caller (platform key, platform staff) reaches every group's and the
// platform's own endpoints. What is out of reach answers 404, like what does not exist.

/** The change context of an alerts request: who (key or person) and from where, for its audit event. */
export function alertsChangeContext(principal: Principal, request: Request): ChangeContext {
  return changeContextOf(principal, request);
}

export function endpointNotFound(id: string): ApiError {
  return new ApiError("not_found", `No webhook endpoint with id ${JSON.stringify(id.slice(0, 64))}.`);
}

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The endpoint if the principal reaches it; 404 otherwise. */
export async function reachableEndpoint(db: Executor, principal: Principal, id: string): Promise<EndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row || !reaches(reachOf(principal), row.billingGroupId)) throw endpointNotFound(id);
  return row;
}

export async function newestSecretPrefix(db: Executor, endpointId: string): Promise<string> {
  const [row] = await db
    .select({ secret: webhookSecrets.secret })
    .from(webhookSecrets)
    .where(eq(webhookSecrets.endpointId, endpointId))
    .orderBy(desc(webhookSecrets.id))
    .limit(1);
  return row ? row.secret.slice(0, 12) : "";
}

export function toWebhookEndpoint(row: Omit<WebhookEndpointInfo, "secrets">, secretPrefix: string): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    billingGroupId: row.billingGroupId,
    disabled: row.disabledAt !== null,
    createdAt: row.createdAt.toISOString(),
    secretPrefix,
  };
}

/** The domain's refusals of input as 422 naming the field: a URL the SSRF guard refuses, an unknown account. */
export async function asBodyErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof WebhookTargetError)
      throw new ApiError("invalid_request_body", `The webhook URL is refused: ${e.message}.`, [
        { param: "url", message: e.message },
      ]);
    if (e instanceof AlertsInputError)
      throw new ApiError("invalid_request_body", e.message, [{ param: "billingGroupId", message: e.message }]);
    throw e;
  }
}
