import pg from "pg";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import type { Engine } from "@/lib/testing/engines";
import { queryRows, type Db } from "./client";
import {
  ANALYZE_AFTER_ROWS,
  ANALYZED_COLUMNS,
  gatherMissingStatistics,
  plannerStatisticsIdle,
} from "./planner-statistics";

const FIRST_START = Date.parse("2025-11-20T00:00:00Z");

/** pg_class.reltuples (-1: never analyzed) and how many columns have statistics (a partitioned table's: inherited). */
async function statistics(db: Db, table: string) {
  const [row] = await queryRows<{ tuples: number; columns: number }>(
    db,
    sql`SELECT reltuples::float8 AS tuples,
          (SELECT count(*)::int FROM pg_stats WHERE schemaname = 'public' AND tablename = ${table} AND inherited = (c.relkind = 'p')) AS columns
        FROM pg_class c WHERE oid = ${table}::regclass`,
  );
  return row;
}

/** The columns of `table` with statistics (a partitioned table's: inherited), by name. */
async function analyzedColumns(db: Db, table: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`SELECT s.attname AS name FROM pg_stats s JOIN pg_class c ON c.oid = ${table}::regclass
        WHERE s.schemaname = 'public' AND s.tablename = ${table} AND s.inherited = (c.relkind = 'p') ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

const PLAIN_TABLES = ["call_uuids", "ledger_entries", "usage_hourly", "usage_daily", "usage_quarter"];

/** Where no autovacuum runs (PGlite; PostgreSQL with autovacuum off), the product analyzes these tables too. */
async function noAutovacuum(db: Db, engine: Engine) {
  if (engine === "pglite") return true;
  return !(await queryRows<{ on: boolean }>(db, sql`SELECT current_setting('autovacuum') = 'on' AS on`))[0].on;
}

let posted = 0;
/** `count` calls of a new group through ingest (the product's path), in batches of 500, one every 10 minutes. */
async function ingest(db: Db, count: number, groupId?: string) {
  if (!groupId) {
    const group = await createBillingGroup(db, { name: "Stats", currency: "EUR", openingBalanceMicros: 10n ** 12n });
    await importSellRates(db, group.id, parseRateCsv("prefix,rate,increment\n44,0.01,60/60\n"));
    groupId = group.id;
  }
  const cdrs = Array.from({ length: count }, () => {
    const start = FIRST_START + posted * 600_000;
    return nativeCdrSchema.parse({
      uuid: `stats-${posted++}`,
      direction: "outbound",
      from: "4930123456",
      to: "442071234567",
      billingGroupId: groupId,
      startTime: new Date(start).toISOString(),
      answerTime: new Date(start + 1_000).toISOString(),
      endTime: new Date(start + 61_000).toISOString(),
    });
  });
  for (let i = 0; i < cdrs.length; i += 500) await ingestCdrs(db, cdrs.slice(i, i + 500));
  return groupId;
}

describeOnEngines("planner statistics after ingest", (handle, engine) => {
  it("ingesting calls gathers the statistics of calls (the partitioned parent) without a manual ANALYZE", async () => {
    const db = handle().db;
    expect(await statistics(db, "calls")).toEqual({ tuples: -1, columns: 0 });
    // Over two monthly partitions; the analyze runs in the background, after the batch that crossed the line.
    const group = await ingest(db, ANALYZE_AFTER_ROWS + 500);
    await waitUntil(async () => (await statistics(db, "calls")).tuples >= ANALYZE_AFTER_ROWS, "calls analyzed", 60_000);
    await plannerStatisticsIdle(db);
    // The columns queries filter, group or order on, and no others (the rest cost most of an analyze, planning nothing).
    expect(await analyzedColumns(db, "calls")).toEqual([...ANALYZED_COLUMNS.calls!].sort());
    if (await noAutovacuum(db, engine)) {
      for (const table of PLAIN_TABLES) expect((await statistics(db, table)).tuples, table).toBeGreaterThan(0);
      expect(await analyzedColumns(db, "ledger_entries")).toEqual([...ANALYZED_COLUMNS.ledger_entries!].sort());
    }
    // Not again at every batch: the next analyze waits for another ANALYZE_AFTER_ROWS plus 10% of the calls.
    const analyzed = (await statistics(db, "calls")).tuples;
    await ingest(db, 500, group);
    await plannerStatisticsIdle(db);
    expect((await statistics(db, "calls")).tuples).toBe(analyzed);
  }, 120_000);
  it("a line crossed while the last analyze rests is analyzed when the rest ends, with no further write", async () => {
    const db = handle().db;
    const group = await ingest(db, ANALYZE_AFTER_ROWS + 500);
    await waitUntil(async () => (await statistics(db, "calls")).tuples >= ANALYZE_AFTER_ROWS, "calls analyzed", 60_000);
    await plannerStatisticsIdle(db);
    // Right after that analyze (resting ANALYZE_REST_FACTOR times its duration): the next line is crossed by the last batch written.
    await ingest(db, ANALYZE_AFTER_ROWS + 500, group);
    await waitUntil(
      async () => (await statistics(db, "calls")).tuples >= 2 * ANALYZE_AFTER_ROWS + 1000,
      "calls analyzed again",
      60_000,
    );
  }, 120_000);
});

describeOnEngines("planner statistics at start", (handle, engine) => {
  it("analyzes the tables never analyzed (calls loaded by hand), then nothing more", async () => {
    const db = handle().db;
    const group = await createBillingGroup(db, { name: "Loaded", currency: "EUR" });
    await db.execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
                           duration, bill_duration, currency, rated, price_micros)
                         SELECT 'hand-' || i, ${group.id}, 'inbound', '1', '2', timestamptz '2025-12-01' + i * interval '1 minute',
                           timestamptz '2025-12-01' + i * interval '1 minute' + interval '1 second', 1, 0, 'EUR', false, 0
                         FROM generate_series(1, 3000) AS i`);
    expect((await statistics(db, "calls")).tuples).toBe(-1);
    const analyzed = await gatherMissingStatistics(db);
    expect([...analyzed].sort()).toEqual(["calls", ...((await noAutovacuum(db, engine)) ? PLAIN_TABLES : [])].sort());
    expect(await statistics(db, "calls")).toMatchObject({ tuples: 3000 });
    expect(await gatherMissingStatistics(db)).toEqual([]);
  });
});

describeOnEngines("planner statistics, several processes", (handle, engine) => {
  it.runIf(engine === "postgres")(
    "never analyzes while another process does (an advisory lock, tried, not waited for)",
    async () => {
      const db = handle().db;
      const url = (db as unknown as { $client: { options: { connectionString: string } } }).$client.options
        .connectionString;
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      let group: string;
      try {
        await other.query("SELECT pg_advisory_lock(727276)"); // another process analyzing
        group = await ingest(db, ANALYZE_AFTER_ROWS + 100);
        await plannerStatisticsIdle(db);
        expect((await statistics(db, "calls")).tuples).toBe(-1);
        await other.query("SELECT pg_advisory_unlock(727276)");
      } finally {
        await other.end();
      }
      await ingest(db, ANALYZE_AFTER_ROWS + 500, group);
      await waitUntil(
        async () => (await statistics(db, "calls")).tuples >= ANALYZE_AFTER_ROWS,
        "calls analyzed",
        60_000,
      );
    },
    120_000,
  );
});
