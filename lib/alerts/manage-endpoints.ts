import { asc, eq } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { accountOf, isPlatform, reachCondition, reachOf } from "@/lib/auth/reach";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db, Executor } from "@/lib/db/client";
import { webhookEndpoints } from "@/lib/db/schema";
import {
  asBodyErrors,
  endpointNotFound,
  reachableEndpoint,
  newestSecretPrefix,
  toWebhookEndpoint,
} from "./endpoint-access";
import type { CreateEndpointBody, CreatedEndpoint, UpdateEndpointBody, WebhookEndpoint } from "./schemas";
import { addWebhookEndpoint, removeWebhookEndpoint, updateWebhookEndpoint } from "./webhooks";

// The /v1 (and portal) face of webhook endpoints: the domain functions of webhooks.ts behind the reach rules of
// endpoint-access.ts. The admin CLI calls the same domain functions as the platform.

/** POST /v1/webhook-endpoints: the new endpoint with its secret, shown in this answer only. */
export async function createEndpoint(
  db: Db,
  principal: Principal,
  body: CreateEndpointBody,
  by: ChangeContext,
): Promise<CreatedEndpoint> {
  const billingGroupId = accountOf(principal, body.billingGroupId);
  const created = await asBodyErrors(() =>
    addWebhookEndpoint(
      db,
      { url: body.url, billingGroupId, description: body.description ?? null, eventTypes: body.eventTypes },
      by,
    ),
  );
  const secret = created.secrets[0].secret;
  return { ...toWebhookEndpoint(created, secret.slice(0, 12)), secret };
}

/** GET /v1/webhook-endpoints: those the caller reaches (a platform caller: all, or one account's), oldest first. */
export async function listEndpoints(
  db: Executor,
  principal: Principal,
  account: string | undefined,
): Promise<{ endpoints: WebhookEndpoint[] }> {
  const reach = reachOf(principal);
  // A platform caller narrows to the account it names; a group's caller gets its own, whatever it names.
  const where = isPlatform(reach)
    ? account
      ? eq(webhookEndpoints.billingGroupId, account)
      : undefined
    : reachCondition(reach, webhookEndpoints.billingGroupId);
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(where)
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  const endpoints: WebhookEndpoint[] = [];
  for (const row of rows) endpoints.push(toWebhookEndpoint(row, await newestSecretPrefix(db, row.id)));
  return { endpoints };
}

export async function getEndpoint(db: Executor, principal: Principal, id: string): Promise<WebhookEndpoint> {
  const row = await reachableEndpoint(db, principal, id);
  return toWebhookEndpoint(row, await newestSecretPrefix(db, row.id));
}

export async function updateEndpoint(
  db: Db,
  principal: Principal,
  id: string,
  body: UpdateEndpointBody,
  by: ChangeContext,
): Promise<WebhookEndpoint> {
  await reachableEndpoint(db, principal, id);
  const after = await asBodyErrors(() => updateWebhookEndpoint(db, id, body, by));
  if (!after) throw endpointNotFound(id);
  return toWebhookEndpoint(after, await newestSecretPrefix(db, id));
}

export async function deleteEndpoint(
  db: Db,
  principal: Principal,
  id: string,
  by: ChangeContext,
): Promise<{ id: string; deleted: true }> {
  await reachableEndpoint(db, principal, id);
  if (!(await removeWebhookEndpoint(db, id, by))) throw endpointNotFound(id);
  return { id, deleted: true };
}
