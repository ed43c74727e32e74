import { sql } from "drizzle-orm";
import type { Executor } from "@/lib/db/client";

/**
 * For fixtures that insert into calls directly: writes each call's claim in call_uuids (group, uuid, start_time, id),
 * as ingest does in the statement that stores a call. The `uuid` filter of the listing, export and usage finds calls
 * through these claims. Calls already claimed are skipped; a fixture holding one uuid twice in a group (which ingest
 * never stores) fails on call_uuids_pkey.
 */
export async function claimCallUuids(db: Executor): Promise<void> {
  await db.execute(sql`INSERT INTO call_uuids (billing_group_id, uuid, start_time, call_id)
    SELECT c.billing_group_id, c.uuid, c.start_time, c.id FROM calls c
    WHERE NOT EXISTS (SELECT 1 FROM call_uuids k WHERE k.billing_group_id = c.billing_group_id AND k.call_id = c.id)`);
}
