import { sql } from "drizzle-orm";
import { queryRows, type Tx } from "@/lib/db/client";
import type { WebhookEventType } from "./event-types";

/**
 * Writes an event of a group to the webhook outbox, with a delivery for each of the group's (and the platform's)
 * enabled endpoints subscribed to its type, inside the caller's transaction: the event commits or rolls back with the
 * change it reports. Signed and sent by the delivery worker like every event. Returns the event id (`msg_...`).
 */
export async function emitWebhookEvent(
  tx: Tx,
  type: WebhookEventType,
  billingGroupId: string,
  data: Record<string, unknown>,
): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`SELECT webhook_event_emit_data(${type}, ${billingGroupId}, ${JSON.stringify(data)}::jsonb) AS id`,
  );
  return row.id;
}
