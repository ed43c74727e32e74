import { sql } from "drizzle-orm";

/**
 * The instant a queue's claim compares `next_attempt_at <=` with: now() plus a millisecond. The queues' due times are
 * timestamp(3) (webhook_deliveries, mail_outbox, auto_recharge_charges), so a now() or clock_timestamp() stored there
 * is rounded to the nearest millisecond, up to 0.5 ms ahead of the clock; a claim starting within that half
 * millisecond of the commit would otherwise leave the row for a later round (lib/alerts/delivery.test.ts saw it on
 * PostgreSQL: 2 failed runs in about 20).
 */
export const DUE_NOW = sql`(now() + interval '1 millisecond')`;
