import { sql } from "drizzle-orm";
import type { Executor } from "@/lib/db/client";
import { claimCallUuids } from "./claim-call-uuids";

/** A call a uuid-filter test looks up: its uuid, its group ("a" or "b"), when it started, and its price. */
export interface PlacedCall {
  uuid: string;
  group: "a" | "b";
  start: string;
  priceMicros?: number;
}

/** The bulk calls: BULK_CALLS of them, alternately groups a (even i) and b, spread over January to March 2025. */
export const BULK_CALLS = 6000;
const BULK_FROM = "2025-01-01T00:00:00.000Z";
const BULK_STEP = `${(89 * 86_400_000) / BULK_CALLS} milliseconds`;

/**
 * The fixture of the `uuid` filter's tests (listing, export, usage) since calls is partitioned by month: bulk calls
 * `bulk-<i>` in the 2025-01..03 partitions (rows enough that a plan reading a partition whole would show), then the
 * placed calls (a start with no partition lands in calls_default), each claimed in call_uuids as ingest does, analysed.
 */
export async function insertUuidLookupCalls(
  db: Executor,
  groups: { a: string; b: string },
  placed: readonly PlacedCall[],
): Promise<void> {
  await db.execute(sql`SELECT ensure_call_partitions('2025-01-01T00:00:00Z', '2025-04-01T00:00:00Z')`);
  const columns = sql`(uuid, billing_group_id, direction, from_number, to_number, start_time, end_time, duration, bill_duration, currency, rated, price_micros)`;
  await db.execute(sql`INSERT INTO calls ${columns}
    SELECT 'bulk-' || i, CASE WHEN i % 2 = 0 THEN ${groups.a} ELSE ${groups.b} END, 'outbound', '4930', '4420',
      ${BULK_FROM}::timestamptz + i * ${BULK_STEP}::interval, ${BULK_FROM}::timestamptz + i * ${BULK_STEP}::interval + interval '1 minute',
      60, 60, 'USD', true, 1000
    FROM generate_series(0, ${BULK_CALLS - 1}) i`);
  for (const p of placed) {
    await db.execute(sql`INSERT INTO calls ${columns} VALUES (${p.uuid}, ${groups[p.group]}, 'inbound', '4930', '4420',
      ${p.start}::timestamptz, ${p.start}::timestamptz + interval '1 minute', 60, 60, 'USD', true, ${p.priceMicros ?? 1000})`);
  }
  await claimCallUuids(db);
  await db.execute(sql`ANALYZE calls`);
  await db.execute(sql`ANALYZE call_uuids`);
}
