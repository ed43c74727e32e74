// Builds the bench's own data, on an open database (the server is not running yet on PGlite).
// Listing data comes from server-side generate_series (fast, deterministic); the rate cards go through
// the rating module's import, the keys and groups through their domain functions.
import { sql } from "drizzle-orm";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import type { RateRow } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { destinationsFor } from "./destinations";
import { generatePrefixes } from "./prefixes";
import { countRollupRows, seedUsageGroup, seedUsageSubtree, type UsageSeeded } from "./usage";

export interface SeedSizes {
  /** Calls in the listed group. */
  listedCalls: number;
  /** Calls in every group together (>= listedCalls). */
  totalCalls: number;
  /** Prefixes of the big rate card (/v1/rates). */
  ratePrefixes: number;
  /** Groups that receive ingested calls. */
  ingestGroups: number;
  /** Calls of the GET /v1/usage group (over 90 days); 0 or absent: no such group. */
  usageCalls?: number;
}

export interface Seeded {
  /** calls:read key of the group holding listedCalls calls and the big rate card. */
  readKey: string;
  listedGroupId: string;
  /** One cdrs:write key per ingest group; ingest groups share a rate card. */
  ingest: { groupId: string; key: string }[];
  /**
   * Three tiers (issue 32): two customers, each with its key, under a reseller R2 under a root reseller R1; each tier
   * with its own deck of the ingest card, so each call is rated and debited three times.
   */
  tiered: { groupId: string; key: string }[];
  /** cdrs:write platform key (imports use no key; posters name the group in each CDR). */
  supplierId: string;
  /** Destinations that match the big rate card. */
  rateDestinations: string[];
  /** Destinations that match the ingest card. */
  ingestDestinations: string[];
  /** A `to` substring that occurs in the listed group's numbers. */
  toFragment: string;
  /** Time window of the listing data (for the startTime filters). */
  window: { gte: string; lte: string };
  usage?: UsageSeeded;
}

/** Newest call of the listing data; calls go back one second apart, spread over groups. */
export const LISTING_END = Date.UTC(2026, 9, 31, 23, 0, 0);
const OTHER_GROUPS = 8;

function rateRows(prefixes: string[], seed: number): RateRow[] {
  return prefixes.map((prefix, i) => ({
    prefix,
    rate: `0.${String(((i * 7919 + seed) % 99_000) + 1000).padStart(6, "0")}`,
    increment:
      i % 3 === 0 ? { min: 60, interval: 60 } : i % 3 === 1 ? { min: 1, interval: 1 } : { min: 30, interval: 6 },
  }));
}

export async function seed(db: Db, sizes: SeedSizes, log: (line: string) => void): Promise<Seeded> {
  const listed = await createBillingGroup(db, {
    name: "Bench listed",
    currency: "USD",
    openingBalanceMicros: 10n ** 15n,
  });
  const others = [];
  for (let i = 0; i < OTHER_GROUPS; i++) {
    others.push(
      await createBillingGroup(db, { name: `Bench other ${i}`, currency: "EUR", openingBalanceMicros: 10n ** 15n }),
    );
  }
  const readKey = await createApiKey(db, { scopes: ["calls:read"], billingGroupId: listed.id, name: "bench read" });

  let t0 = performance.now();
  const bigCard = generatePrefixes(sizes.ratePrefixes, 1);
  // Sorted: the primary-key index then grows at its right edge (several times faster on PGlite).
  await importSellRates(db, listed.id, rateRows([...bigCard].sort(), 17));
  log(`rate card of ${bigCard.length} prefixes imported in ${Math.round(performance.now() - t0)} ms`);

  // Ingest groups: a realistic card (5 000 prefixes) and one supplier with its buy card.
  const ingestCard = generatePrefixes(5_000, 2);
  const supplier = await createSupplier(db, { name: "Bench carrier" });
  await importBuyRates(db, supplier.id, rateRows(ingestCard, 3));
  const ingest = [];
  for (let i = 0; i < sizes.ingestGroups; i++) {
    const g = await createBillingGroup(db, {
      name: `Bench ingest ${i}`,
      currency: "USD",
      openingBalanceMicros: 10n ** 15n,
    });
    await importSellRates(db, g.id, rateRows(ingestCard, 29 + i));
    const k = await createApiKey(db, {
      scopes: ["cdrs:write", "calls:read"],
      billingGroupId: g.id,
      name: `bench ingest ${i}`,
    });
    ingest.push({ groupId: g.id, key: k.key });
  }

  const tiered = [];
  let parentId: string | undefined;
  for (const [n, name] of ["R1", "R2"].entries()) {
    const r = await createBillingGroup(db, {
      name: `Bench reseller ${name}`,
      currency: "USD",
      openingBalanceMicros: 10n ** 15n,
      parentId,
    });
    await importSellRates(db, r.id, rateRows(ingestCard, 11 + n));
    parentId = r.id;
  }
  for (let i = 0; i < 2; i++) {
    const g = await createBillingGroup(db, {
      name: `Bench tiered ${i}`,
      currency: "USD",
      openingBalanceMicros: 10n ** 15n,
      parentId,
    });
    await importSellRates(db, g.id, rateRows(ingestCard, 41 + i));
    const k = await createApiKey(db, { scopes: ["cdrs:write"], billingGroupId: g.id, name: `bench tiered ${i}` });
    tiered.push({ groupId: g.id, key: k.key });
  }

  const usage = sizes.usageCalls ? await seedUsageGroup(db, sizes.usageCalls, 90, log) : undefined;
  // A reseller's subtree of 1 000 customers sharing as many calls (issue 32).
  const subtree = usage && sizes.usageCalls ? await seedUsageSubtree(db, sizes.usageCalls, 90, 1000, log) : undefined;
  t0 = performance.now();
  await insertListingCalls(
    db,
    listed.id,
    others.map((g) => g.id),
    sizes,
    log,
    usage &&
      (async () => {
        await usage.insert();
        await subtree?.insert();
      }),
  );
  if (usage) usage.rollupRows = await countRollupRows(db, usage.groupId);
  log(`${sizes.totalCalls} listing calls inserted in ${Math.round(performance.now() - t0)} ms`);

  const stepMs = 1000;
  return {
    readKey: readKey.key,
    listedGroupId: listed.id,
    ingest,
    tiered,
    supplierId: supplier.id,
    rateDestinations: destinationsFor(bigCard, 2_000),
    ingestDestinations: destinationsFor(ingestCard, 10_000),
    toFragment: "7183",
    usage: usage && {
      groupId: usage.groupId,
      readKey: usage.readKey,
      costKey: usage.costKey,
      range: usage.range,
      rollupRows: usage.rollupRows,
      subtree: subtree && {
        resellerId: subtree.resellerId,
        customers: subtree.customers,
        costKey: subtree.costKey,
        readKey: subtree.readKey,
      },
    },
    window: {
      // The middle fifth of the data.
      gte: new Date(LISTING_END - Math.floor(sizes.totalCalls * 0.6) * stepMs).toISOString(),
      lte: new Date(LISTING_END - Math.floor(sizes.totalCalls * 0.4) * stepMs).toISOString(),
    },
  };
}

/**
 * totalCalls calls, one second apart going back from LISTING_END; every (total/listed)-th belongs to
 * the listed group, the rest round-robin to the others, so the listed group's calls are spread over
 * the whole table as in real traffic. Inserted in chunks (bounded transactions, progress lines).
 */
async function insertListingCalls(
  db: Db,
  listedId: string,
  otherIds: string[],
  sizes: SeedSizes,
  log: (line: string) => void,
  alsoInsert?: () => Promise<void>,
) {
  const every = Math.max(1, Math.round(sizes.totalCalls / sizes.listedCalls));
  const others = `{${otherIds.join(",")}}`;
  // Indexes are built once after the load: much faster than maintaining five of them row by row.
  const indexes = await dropCallIndexes(db);
  const chunk = 500_000;
  for (let from = 0; from < sizes.totalCalls; from += chunk) {
    const to = Math.min(sizes.totalCalls, from + chunk) - 1;
    const started = performance.now();
    await db.execute(sql`
      INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, answer_time, end_time,
        duration, bill_duration, pdd_ms, hangup_cause, q850_cause, read_codec, write_codec, recording_url, accountcode,
        network_addr, currency, rated, matched_prefix, sell_rate_micros, increment_min, increment_interval, price_micros)
      SELECT 'bench-list-' || i,
        CASE WHEN i % ${every} = 0 THEN ${listedId} ELSE (${others}::text[])[1 + (i / ${every}) % ${otherIds.length}] END,
        CASE WHEN k < 700 THEN 'outbound' ELSE 'inbound' END,
        '1555' || lpad((i % 10000000)::text, 7, '0'),
        '44' || lpad(((i::bigint * 48271) % 10000000000)::text, 10, '0'),
        ts, CASE WHEN k % 8 = 0 THEN NULL ELSE ts + interval '3 seconds' END, ts + make_interval(secs => 3 + (i % 600)),
        3 + (i % 600), CASE WHEN k % 8 = 0 THEN 0 ELSE 60 * ceil((i % 600) / 60.0)::int END,
        1500 + (i % 3000),
        CASE WHEN k % 8 = 0 THEN 'NO_ANSWER' WHEN (k / 8) % 10 = 3 THEN 'USER_BUSY' ELSE 'NORMAL_CLEARING' END,
        CASE WHEN k % 8 = 0 THEN 19 WHEN (k / 8) % 10 = 3 THEN 17 ELSE 16 END,
        'PCMA', 'PCMA', NULL, NULL, '10.0.0.' || (i % 250),
        CASE WHEN i % ${every} = 0 THEN 'USD' ELSE 'EUR' END,
        true, '44', 12000, 60, 60, CASE WHEN k % 8 = 0 THEN 0 ELSE 12000 * ceil((i % 600) / 60.0)::bigint END
      FROM (SELECT i, (i * 2654435761) % 1000 AS k, ${new Date(LISTING_END).toISOString()}::timestamptz - make_interval(secs => i) AS ts
            FROM generate_series(${from}::bigint, ${to}::bigint) AS i) AS s`);
    log(`  calls ${to + 1}/${sizes.totalCalls} (${Math.round(performance.now() - started)} ms for this chunk)`);
  }
  await alsoInsert?.();
  // Calls of months outside the open window landed in calls_default: give those months their partitions (moves the
  // rows out), and name every call in call_uuids as ingest would (idempotency of the seeded uuids).
  await db.execute(
    sql`SELECT ensure_call_partitions(min(start_time), max(start_time) + interval '1 millisecond') FROM calls_default HAVING count(*) > 0`,
  );
  await db.execute(
    sql`INSERT INTO call_uuids (billing_group_id, uuid, start_time, call_id) SELECT billing_group_id, uuid, start_time, id FROM calls ON CONFLICT DO NOTHING`,
  );
  for (const ddl of indexes) {
    const started = performance.now();
    await db.execute(sql.raw(ddl));
    log(`  ${ddl.slice(0, 60)}... ${Math.round(performance.now() - started)} ms`);
  }
  // No ANALYZE here: the server gathers the statistics these calls lack when it starts, as it would for a user's
  // restored database (lib/db/planner-statistics.ts), and the bench measures that.
}

/** Drops the secondary indexes of calls, returning their definitions (pg_indexes) to recreate them as they were. */
async function dropCallIndexes(db: Db): Promise<string[]> {
  const rows = await queryRows<{ name: string; ddl: string }>(
    db,
    sql`SELECT indexname AS name, indexdef AS ddl FROM pg_indexes WHERE tablename = 'calls' AND indexname <> 'calls_pkey'`,
  );
  for (const r of rows) await db.execute(sql.raw(`DROP INDEX ${r.name}`));
  // A partitioned index's definition reads "ON ONLY calls" (the parent alone): recreate it on every partition.
  return rows.map((r) => r.ddl.replace(" ON ONLY ", " ON "));
}
