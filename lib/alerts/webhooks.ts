import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db, Executor } from "@/lib/db/client";
import { queryRows } from "@/lib/db/client";
import { balanceAlertThresholds, billingGroups, webhookEndpoints, webhookSecrets } from "@/lib/db/schema";
import { newWebhookSecret } from "./signing";
import { checkWebhookUrl } from "./url-guard";

// Webhook endpoints, their secrets and per-group balance thresholds. The outbox (webhook_events, webhook_deliveries)
// and the thresholds' `crossed` state are written by the balance alerts trigger on billing_groups
// (lib/alerts/triggers.ts), in the transaction that moves the balance; delivery.ts drains the outbox.

/** `we_` + 80 random bits (same alphabet as lib/ids). */
function newEndpointId(): string {
  const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
  let out = "";
  for (const b of randomBytes(16)) out += alphabet[b & 31];
  return `we_${out}`;
}

export class AlertsInputError extends Error {}

export interface WebhookEndpointInfo {
  id: string;
  url: string;
  billingGroupId: string | null;
  description: string | null;
  createdAt: Date;
  /** Live secrets, oldest first, with their expiry (null: until rotated). Shown in full only when created. */
  secrets: { secret: string; createdAt: Date; expiresAt: Date | null }[];
}

async function groupExists(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ id: billingGroups.id }).from(billingGroups).where(eq(billingGroups.id, id));
  return Boolean(row);
}

/** Registers an endpoint (SSRF-checked) with a fresh secret; returns it with the secret, shown this once. */
export async function addWebhookEndpoint(
  db: Db,
  options: { url: string; billingGroupId?: string | null; description?: string | null },
): Promise<WebhookEndpointInfo> {
  const url = await checkWebhookUrl(options.url);
  if (options.billingGroupId && !(await groupExists(db, options.billingGroupId))) {
    throw new AlertsInputError(`no billing group ${options.billingGroupId}`);
  }
  const secret = newWebhookSecret();
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newEndpointId(),
        url: url.toString(),
        billingGroupId: options.billingGroupId ?? null,
        description: options.description ?? null,
      })
      .returning();
    const [row] = await tx.insert(webhookSecrets).values({ endpointId: endpoint.id, secret }).returning();
    return { ...endpoint, secrets: [{ secret, createdAt: row.createdAt, expiresAt: null }] };
  });
}

const liveSecret = (now: Date) => or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now));

export async function listWebhookEndpoints(db: Executor): Promise<WebhookEndpointInfo[]> {
  const endpoints = await db
    .select()
    .from(webhookEndpoints)
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  const secrets = await db.select().from(webhookSecrets).where(liveSecret(new Date())).orderBy(asc(webhookSecrets.id));
  return endpoints.map((e) => ({
    ...e,
    secrets: secrets
      .filter((s) => s.endpointId === e.id)
      .map((s) => ({ secret: s.secret, createdAt: s.createdAt, expiresAt: s.expiresAt })),
  }));
}

/**
 * Adds a new secret and lets the current ones expire after `overlapSeconds` (default 24 h): during the overlap
 * every delivery carries one signature per secret, so receivers switch over without losing a message.
 */
export async function rotateWebhookSecret(
  db: Db,
  endpointId: string,
  overlapSeconds = 86_400,
): Promise<WebhookEndpointInfo> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0)
    throw new AlertsInputError("the overlap is a whole number of seconds >= 0");
  const secret = newWebhookSecret();
  await db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, endpointId))
      .for("update");
    if (!endpoint) throw new AlertsInputError(`no webhook endpoint ${endpointId}`);
    const expiresAt = new Date(Date.now() + overlapSeconds * 1000);
    await tx
      .update(webhookSecrets)
      .set({ expiresAt })
      .where(
        and(
          eq(webhookSecrets.endpointId, endpointId),
          or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, expiresAt)),
        ),
      );
    await tx.insert(webhookSecrets).values({ endpointId, secret });
  });
  const [info] = (await listWebhookEndpoints(db)).filter((e) => e.id === endpointId);
  return info;
}

/** Removes an endpoint; its pending deliveries go with it (the events stay). */
export async function removeWebhookEndpoint(db: Db, endpointId: string): Promise<boolean> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

export interface ThresholdInfo {
  thresholdMicros: bigint;
  crossed: boolean;
}

/**
 * Replaces a group's low-balance thresholds. Each starts in the state the current balance gives it (under the
 * group's row lock, so no debit slips between reading the balance and writing the state): a threshold the balance
 * is already below does not fire on creation, only at its next crossing.
 */
export async function setBalanceThresholds(
  db: Db,
  billingGroupId: string,
  thresholds: readonly bigint[],
): Promise<ThresholdInfo[]> {
  const unique = [...new Set(thresholds)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return db.transaction(async (tx) => {
    const [group] = await queryRows<{ balance: string }>(
      tx,
      sql`SELECT balance_micros::text AS balance FROM billing_groups WHERE id = ${billingGroupId} FOR UPDATE`,
    );
    if (!group) throw new AlertsInputError(`no billing group ${billingGroupId}`);
    const balance = BigInt(group.balance);
    await tx.delete(balanceAlertThresholds).where(eq(balanceAlertThresholds.billingGroupId, billingGroupId));
    if (unique.length > 0) {
      await tx
        .insert(balanceAlertThresholds)
        .values(unique.map((t) => ({ billingGroupId, thresholdMicros: t, crossed: balance <= t })));
    }
    return unique.map((t) => ({ thresholdMicros: t, crossed: balance <= t }));
  });
}

export async function listBalanceThresholds(db: Executor, billingGroupId: string): Promise<ThresholdInfo[]> {
  const rows = await db
    .select({ thresholdMicros: balanceAlertThresholds.thresholdMicros, crossed: balanceAlertThresholds.crossed })
    .from(balanceAlertThresholds)
    .where(eq(balanceAlertThresholds.billingGroupId, billingGroupId))
    .orderBy(sql`${balanceAlertThresholds.thresholdMicros} DESC`);
  return rows;
}
