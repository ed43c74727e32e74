import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import type { ChangeContext } from "@/lib/billing/change-context";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { decodeKeysetCursor, encodeKeysetCursor, scopeHash } from "@/lib/http/keyset-cursor";
import { reachableEndpoint } from "./endpoint-access";
import { TEST_EVENT_TYPE } from "./event-types";
import type { Delivery } from "./schemas";

// An endpoint's deliveries and their attempts (webhook_delivery_attempts, written by delivery.ts with each outcome),
// a test event sent through the real outbox, and a resend. Reach as in endpoint-access.ts (404 out of reach).

interface DeliveryRow {
  event_id: string;
  type: string;
  created_at: string;
  seq: string;
  delivered_at: string | null;
  failed_at: string | null;
  next_attempt_at: string;
}

interface AttemptRow {
  event_id: string;
  attempted_at: string;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

const iso = (value: string | Date) => new Date(value).toISOString();

async function withAttempts(db: Executor, endpointId: string, rows: DeliveryRow[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const ids = sql.join(
    rows.map((r) => sql`${r.event_id}`),
    sql`, `,
  );
  const attempts = await queryRows<AttemptRow>(
    db,
    sql`SELECT event_id, attempted_at, duration_ms, status, error, response_excerpt FROM webhook_delivery_attempts
        WHERE endpoint_id = ${endpointId} AND event_id IN (${ids}) ORDER BY id DESC`,
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    type: r.type,
    createdAt: iso(r.created_at),
    status: r.delivered_at ? "delivered" : r.failed_at ? "failed" : "pending",
    nextAttemptAt: r.delivered_at || r.failed_at ? null : iso(r.next_attempt_at),
    attempts: attempts
      .filter((a) => a.event_id === r.event_id)
      .map((a) => ({
        attemptedAt: iso(a.attempted_at),
        durationMs: Number(a.duration_ms),
        status: a.status === null ? null : Number(a.status),
        error: a.error,
        responseExcerpt: a.response_excerpt,
      })),
  }));
}

const DELIVERY_COLUMNS = sql`d.event_id, e.type, e.created_at, e.seq::text AS seq, d.delivered_at, d.failed_at, d.next_attempt_at`;

async function oneDelivery(db: Executor, endpointId: string, eventId: string): Promise<Delivery | null> {
  const rows = await queryRows<DeliveryRow>(
    db,
    sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.endpoint_id = ${endpointId} AND d.event_id = ${eventId}`,
  );
  return (await withAttempts(db, endpointId, rows))[0] ?? null;
}

/** One page of an endpoint's deliveries, newest event first (keyset on the event's time and sequence). */
export async function listDeliveries(
  db: Executor,
  principal: Principal,
  endpointId: string,
  page: { pageSize: number; cursor?: string },
): Promise<{ deliveries: Delivery[]; hasMore: boolean; nextCursor?: string }> {
  await reachableEndpoint(db, principal, endpointId);
  const hash = scopeHash({ listing: "webhook-deliveries", endpoint: endpointId });
  const after = page.cursor === undefined ? undefined : decodeKeysetCursor(page.cursor, hash);
  const rows = await queryRows<DeliveryRow>(
    db,
    sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.endpoint_id = ${endpointId}
          ${after ? sql`AND (e.created_at, e.seq) < (${after.at.toISOString()}::timestamptz, ${after.id.toString()}::bigint)` : sql``}
        ORDER BY e.created_at DESC, e.seq DESC LIMIT ${page.pageSize + 1}`,
  );
  const hasMore = rows.length > page.pageSize;
  const pageRows = hasMore ? rows.slice(0, page.pageSize) : rows;
  const last = pageRows.at(-1);
  return {
    deliveries: await withAttempts(db, endpointId, pageRows),
    hasMore,
    nextCursor:
      hasMore && last ? encodeKeysetCursor({ at: new Date(last.created_at), id: BigInt(last.seq) }, hash) : undefined,
  };
}

/**
 * POST /v1/webhook-endpoints/{id}/test: a `webhook.test` event for this endpoint alone, put in the outbox like any
 * event (the delivery worker signs and sends it, retries and logs it). A disabled endpoint's test waits like its other
 * deliveries. Audited (`webhook_endpoint.test_sent`).
 */
export async function sendTestEvent(
  db: Db,
  principal: Principal,
  endpointId: string,
  by: ChangeContext,
): Promise<Delivery> {
  const endpoint = await reachableEndpoint(db, principal, endpointId);
  const eventId = `msg_${randomUUID().replaceAll("-", "")}`;
  const now = new Date();
  const body = JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: now.toISOString(),
    data: { endpointId, billingGroupId: endpoint.billingGroupId, message: "A test event sent from Callbook." },
  });
  await db.transaction(async (tx) => {
    await tx.execute(sql`INSERT INTO webhook_events (id, type, billing_group_id, body, created_at)
                         VALUES (${eventId}, ${TEST_EVENT_TYPE}, ${endpoint.billingGroupId}, ${body}, ${now.toISOString()}::timestamptz)`);
    await tx.execute(sql`INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
                         VALUES (${eventId}, ${endpointId}, ${now.toISOString()}::timestamptz)`);
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "webhook_endpoint.test_sent",
      billingGroupId: endpoint.billingGroupId,
      targetType: "webhook_endpoint",
      targetId: endpointId,
      address: by.address,
      after: { eventId },
    });
  });
  return (await oneDelivery(db, endpointId, eventId))!;
}

/**
 * POST .../deliveries/{eventId}/resend: the delivery is due now and its retries start again (delivered, failed or
 * waiting alike); 409 while an attempt is in flight. Audited (`webhook_delivery.resent`).
 */
export async function resendDelivery(
  db: Db,
  principal: Principal,
  endpointId: string,
  eventId: string,
  by: ChangeContext,
): Promise<Delivery> {
  const endpoint = await reachableEndpoint(db, principal, endpointId);
  await db.transaction(async (tx) => {
    const [row] = await queryRows<{ in_flight: boolean }>(
      tx,
      sql`SELECT (leased_until IS NOT NULL AND leased_until >= now() AND delivered_at IS NULL AND failed_at IS NULL) AS in_flight
          FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND event_id = ${eventId} FOR UPDATE`,
    );
    if (!row)
      throw new ApiError("not_found", `No delivery of event ${JSON.stringify(eventId.slice(0, 64))} to this endpoint.`);
    if (row.in_flight)
      throw new ApiError("conflict", "An attempt of this delivery is in flight; resend once it has ended.");
    await tx.execute(sql`UPDATE webhook_deliveries SET retry_base = attempts, delivered_at = NULL, failed_at = NULL,
                           leased_until = NULL, next_attempt_at = now()
                         WHERE endpoint_id = ${endpointId} AND event_id = ${eventId}`);
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "webhook_delivery.resent",
      billingGroupId: endpoint.billingGroupId,
      targetType: "webhook_endpoint",
      targetId: endpointId,
      address: by.address,
      after: { eventId },
    });
  });
  return (await oneDelivery(db, endpointId, eventId))!;
}
