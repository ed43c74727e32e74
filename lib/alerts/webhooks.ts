import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db, Executor } from "@/lib/db/client";
import { queryRows } from "@/lib/db/client";
import { balanceAlertThresholds, billingGroups, webhookEndpoints, webhookSecrets } from "@/lib/db/schema";
import { formatMicros } from "@/lib/money/micros";
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
  /** Event types it receives; `*`: all. */
  eventTypes: string[];
  disabledAt: Date | null;
  /** Live secrets, oldest first, with their expiry (null: until rotated). Shown in full only when created. */
  secrets: { secret: string; createdAt: Date; expiresAt: Date | null }[];
}

async function groupExists(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ id: billingGroups.id }).from(billingGroups).where(eq(billingGroups.id, id));
  return Boolean(row);
}

/** What the audit log keeps of an endpoint: never its secrets. */
export function endpointSnapshot(e: Omit<WebhookEndpointInfo, "secrets">) {
  return {
    id: e.id,
    url: e.url,
    billingGroupId: e.billingGroupId,
    description: e.description,
    eventTypes: e.eventTypes,
    disabled: e.disabledAt !== null,
  };
}

/**
 * Registers an endpoint (SSRF-checked) with a fresh secret; returns it with the secret, shown this once. With `by`,
 * the audit event `webhook_endpoint.created` is written in the same transaction.
 */
export async function addWebhookEndpoint(
  db: Db,
  options: { url: string; billingGroupId?: string | null; description?: string | null; eventTypes?: string[] },
  by?: ChangeContext,
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
        eventTypes: options.eventTypes ?? ["*"],
      })
      .returning();
    const [row] = await tx.insert(webhookSecrets).values({ endpointId: endpoint.id, secret }).returning();
    if (by) {
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "webhook_endpoint.created",
        billingGroupId: endpoint.billingGroupId,
        targetType: "webhook_endpoint",
        targetId: endpoint.id,
        address: by.address,
        after: endpointSnapshot(endpoint),
      });
    }
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

/** Removes an endpoint; its pending deliveries go with it (the events stay). Audited (`webhook_endpoint.deleted`). */
export async function removeWebhookEndpoint(db: Db, endpointId: string, by?: ChangeContext): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).returning();
    if (deleted && by) {
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "webhook_endpoint.deleted",
        billingGroupId: deleted.billingGroupId,
        targetType: "webhook_endpoint",
        targetId: deleted.id,
        address: by.address,
        before: endpointSnapshot(deleted),
      });
    }
    return Boolean(deleted);
  });
}

export interface EndpointChanges {
  url?: string;
  eventTypes?: string[];
  description?: string | null;
  disabled?: boolean;
}

/** Changes an endpoint (a new URL SSRF-checked); audited (`webhook_endpoint.updated`, before and after). */
export async function updateWebhookEndpoint(
  db: Db,
  endpointId: string,
  changes: EndpointChanges,
  by: ChangeContext,
): Promise<Omit<WebhookEndpointInfo, "secrets"> | null> {
  const url = changes.url === undefined ? undefined : (await checkWebhookUrl(changes.url)).toString();
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).for("update");
    if (!before) return null;
    const set = {
      ...(url !== undefined ? { url } : {}),
      ...(changes.eventTypes !== undefined ? { eventTypes: changes.eventTypes } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.disabled !== undefined
        ? { disabledAt: changes.disabled ? (before.disabledAt ?? new Date()) : null }
        : {}),
    };
    const [after] = await tx.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, endpointId)).returning();
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "webhook_endpoint.updated",
      billingGroupId: after.billingGroupId,
      targetType: "webhook_endpoint",
      targetId: after.id,
      address: by.address,
      before: endpointSnapshot(before),
      after: endpointSnapshot(after),
    });
    return after;
  });
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
  by?: ChangeContext,
): Promise<ThresholdInfo[]> {
  const unique = [...new Set(thresholds)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return db.transaction(async (tx) => {
    const [group] = await queryRows<{ balance: string }>(
      tx,
      sql`SELECT balance_micros::text AS balance FROM billing_groups WHERE id = ${billingGroupId} FOR UPDATE`,
    );
    if (!group) throw new AlertsInputError(`no billing group ${billingGroupId}`);
    const balance = BigInt(group.balance);
    const before = by ? await listBalanceThresholds(tx, billingGroupId) : [];
    await tx.delete(balanceAlertThresholds).where(eq(balanceAlertThresholds.billingGroupId, billingGroupId));
    if (unique.length > 0) {
      await tx
        .insert(balanceAlertThresholds)
        .values(unique.map((t) => ({ billingGroupId, thresholdMicros: t, crossed: balance <= t })));
    }
    if (by) {
      const amounts = (list: readonly bigint[]) => list.map((t) => formatMicros(t));
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "alert_threshold.changed",
        billingGroupId,
        targetType: "account",
        targetId: billingGroupId,
        address: by.address,
        before: { thresholds: amounts(before.map((t) => t.thresholdMicros)) },
        after: { thresholds: amounts(unique) },
      });
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
