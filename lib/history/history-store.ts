import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import type { HistorySettings } from "@/lib/config/env";
import type { StoredCall } from "@/lib/calls/stored-call";
import { utcMonthStart } from "@/lib/db/call-partitions";
import { calls } from "@/lib/db/schema";

// The history tier's store: ClickHouse over HTTP (@clickhouse/client), tested with Debian's 18.16 and meant for the
// releases after it, so only SQL both accept: no DateTime64 (instants are Int64 epoch milliseconds, UTC), no Nullable
// in the sorting key, MergeTree partitions dropped with ALTER TABLE ... DROP PARTITION (docs/contract.md "History tier").

/**
 * An open history store: the client and the database its tables are in (every statement names it). With a cluster,
 * `calls` is a Distributed table and each shard's rows are in `calls_local` on its server (`shards`, one client
 * each); without one, `shards` is the one client and `calls` is the MergeTree itself.
 */
export interface HistoryStore {
  client: ClickHouseClient;
  database: string;
  /** The cluster's name in remote_servers; undefined on a single server. */
  cluster?: string;
  /** A client per server that holds a part of the calls (partitions are dropped and mutations run there). */
  shards: ClickHouseClient[];
  close(): Promise<void>;
}

function openClient(url: string): ClickHouseClient {
  // The client's own log stays quiet: errors are thrown. No keep-alive: ClickHouse closes an idle connection after
  // its keep_alive_timeout (3 s), and a request sent on one it just closed fails with "socket hang up" (seen in
  // the tests); a connection per request costs little next to a batch of calls or a listing's query.
  return createClient({
    url,
    request_timeout: 300_000,
    keep_alive: { enabled: false },
    log: { level: ClickHouseLogLevel.OFF },
  });
}

export function openHistoryStore(settings: Pick<HistorySettings, "url" | "database" | "cluster">): HistoryStore {
  const client = openClient(settings.url);
  const shards = settings.cluster ? settings.cluster.serverUrls.map(openClient) : [client];
  return {
    client,
    database: settings.database,
    cluster: settings.cluster?.name,
    shards,
    close: async () => {
      await Promise.all([client, ...(settings.cluster ? shards : [])].map((c) => c.close()));
    },
  };
}

/** A PostgreSQL column as drizzle describes it: what its ClickHouse type follows from. */
type PgColumn = { name: string; columnType: string; notNull: boolean };

/** ClickHouse's type of one PostgreSQL column: instants as epoch milliseconds, booleans as 0/1, int8 as Int64. */
function clickHouseType(table: string, column: PgColumn): string {
  const base = (() => {
    switch (column.columnType) {
      case "PgBigInt64":
      case "PgBigInt53":
      case "PgTimestamp":
        return "Int64";
      case "PgInteger":
        return "Int32";
      case "PgSmallInt":
        return "Int16";
      case "PgBoolean":
        return "UInt8";
      case "PgText":
      case "PgChar":
        return "String";
      default:
        throw new Error(`no ClickHouse type for ${table}.${column.name}`);
    }
  })();
  return column.notNull ? base : `Nullable(${base})`;
}

/** A history table's column: its name, ClickHouse type and PostgreSQL column type (for the copy's encoding). */
export interface HistoryColumn {
  name: string;
  type: string;
  columnType: string;
  instant: boolean;
  int8: boolean;
}

/** Every column of a PostgreSQL table, in its order, with its ClickHouse type: a column added there is added here. */
export function historyColumns(table: Table): HistoryColumn[] {
  return Object.values(getTableColumns(table)).map((column) => ({
    name: column.name,
    type: clickHouseType(getTableName(table), column),
    columnType: column.columnType,
    instant: column.columnType === "PgTimestamp",
    int8: column.columnType === "PgBigInt64" || column.columnType === "PgBigInt53",
  }));
}

/** Every column of PostgreSQL's calls, in its order, with its ClickHouse type. */
export const HISTORY_CALL_COLUMNS: readonly HistoryColumn[] = historyColumns(calls);

/** The key table of a platform page (docs/contract.md "History tier"), its feed and the view that says it is whole. */
export const CALL_KEYS = "call_keys";
const CALL_KEYS_FEED = "call_keys_feed";
const CALL_KEYS_READY = "call_keys_ready";

/** The table every read and insert names: the MergeTree, or with a cluster the Distributed table over the shards. */
export const callsTable = (store: HistoryStore) => `${store.database}.calls`;
/** A UTC month's partition of history's calls (toYYYYMM of its first instant: 202611). */
export const monthPartition = (month: Date) => month.getUTCFullYear() * 100 + month.getUTCMonth() + 1;

/** A history table's name on each server of `shards`, where its rows are: `calls_local` with a cluster, else `calls`. */
export const localName = (store: HistoryStore, table: string) => (store.cluster ? `${table}_local` : table);
/** The calls' local table, qualified (partitions are dropped and mutations run there). */
export const localCallsTable = (store: HistoryStore) => `${store.database}.${localName(store, "calls")}`;
/** The name alone (system.mutations and system.tables name tables without their database). */
export const localCallsName = (store: HistoryStore) => localName(store, "calls");

/**
 * Settings of every insert into a history table: with a cluster, the Distributed table writes to the shards before
 * it answers (insert_distributed_sync), so the verification that follows a copy reads what was inserted.
 */
export const insertSettings = (store: HistoryStore) =>
  store.cluster ? { insert_distributed_sync: 1 as const } : ({} as Record<string, never>);

/**
 * Runs one statement on a history table's local table on every shard (`local`: qualified), one server after another:
 * what a Distributed table refuses (partition operations, mutations). `table` defaults to calls.
 */
export async function onEveryShard(
  store: HistoryStore,
  statement: (local: string) => string,
  table = "calls",
): Promise<void> {
  for (const shard of store.shards)
    await shard.command({ query: statement(`${store.database}.${localName(store, table)}`) });
}

/**
 * Drops a UTC month's partition of a history table (calls unless named) on every shard: nothing when absent. The
 * calls' month takes its keys (call_keys) with it, so a copy's restart or retention leaves no key without its call.
 */
export async function dropMonthPartition(store: HistoryStore, month: Date, table = "calls"): Promise<void> {
  for (const t of table === "calls" ? ["calls", CALL_KEYS] : [table])
    await onEveryShard(store, (local) => `ALTER TABLE ${local} DROP PARTITION ${monthPartition(month)}`, t);
}

/**
 * Creates a history table `table` (columns and `ENGINE = MergeTree ...` clause given) when absent. Without a cluster:
 * that table. With one: `${table}_local` with that engine on every server, and `table` as a Distributed table over
 * them sharded by cityHash64(billing_group_id) on each server and on the entry server, so a group's rows of every
 * history table are on one shard. Server by server, not ON CLUSTER (distributed DDL needs Keeper; 18.16 without it
 * refuses); the servers listed must be as many as the cluster's in system.clusters.
 */
export async function ensureShardedTable(
  store: HistoryStore,
  table: string,
  columns: string,
  mergeTree: string,
): Promise<void> {
  if (!store.cluster) {
    await store.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${store.database}` });
    await store.client.command({
      query: `CREATE TABLE IF NOT EXISTS ${store.database}.${table} (${columns}) ${mergeTree}`,
    });
    return;
  }
  const cluster = store.cluster;
  const [{ n }] = await (
    await store.client.query({
      query: `SELECT toString(count()) AS n FROM system.clusters WHERE cluster = '${cluster}'`,
      format: "JSONEachRow",
    })
  ).json<{ n: string }>();
  if (Number(n) !== store.shards.length)
    throw new Error(
      `history cluster ${cluster} has ${n} servers in remote_servers, HISTORY_CLICKHOUSE_SERVERS lists ${store.shards.length}`,
    );
  const local = localName(store, table);
  const distributed = `(${columns}) ENGINE = Distributed(${cluster}, ${store.database}, ${local}, cityHash64(billing_group_id))`;
  for (const shard of store.shards) {
    await shard.command({ query: `CREATE DATABASE IF NOT EXISTS ${store.database}` });
    await shard.command({ query: `CREATE TABLE IF NOT EXISTS ${store.database}.${local} (${columns}) ${mergeTree}` });
    await shard.command({ query: `CREATE TABLE IF NOT EXISTS ${store.database}.${table} ${distributed}` });
  }
  await store.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${store.database}` });
  await store.client.command({ query: `CREATE TABLE IF NOT EXISTS ${store.database}.${table} ${distributed}` });
}

/**
 * Creates a history table of `columns` when absent (ensureShardedTable): MergeTree, one partition per UTC month of the
 * call's start_time (moved and dropped month by month), sorted by `orderBy`.
 */
export async function ensureMonthTable(
  store: HistoryStore,
  table: string,
  columns: readonly HistoryColumn[],
  orderBy: string,
  engine = "MergeTree",
): Promise<void> {
  await ensureShardedTable(
    store,
    table,
    columns.map((c) => `${c.name} ${c.type}`).join(", "),
    `ENGINE = ${engine} PARTITION BY toYYYYMM(toDateTime(intDiv(start_time, 1000), 'UTC')) ORDER BY (${orderBy})`,
  );
}

/**
 * call_keys' columns: a call's key, its group (to read its row in calls) and every column a listing's filter reads
 * but uuid (a uuid filter reads calls: one call, and 36 random bytes a call here).
 */
export const CALL_KEY_COLUMNS: readonly HistoryColumn[] = HISTORY_CALL_COLUMNS.filter((c) =>
  [
    "start_time",
    "id",
    "billing_group_id",
    "direction",
    "hangup_cause",
    "supplier_id",
    "to_number",
    "from_number",
  ].includes(c.name),
);
/** call_keys, as reads name it (the Distributed table with a cluster). */
export const callKeysTable = (store: HistoryStore) => `${store.database}.${CALL_KEYS}`;

async function tableExists(client: ClickHouseClient, database: string, table: string): Promise<boolean> {
  const result = await client.query({
    query: `SELECT toString(count()) AS n FROM system.tables WHERE database = '${database}' AND name = '${table}'`,
    format: "JSONEachRow",
  });
  return (await result.json<{ n: string }>())[0]?.n !== "0";
}

/**
 * Creates the history database and its calls table when absent, sorted by (billing_group_id, start_time, id) as
 * PostgreSQL's primary key, so a group's calls of a month read as one range. With a cluster: calls_local and a
 * Distributed calls (ensureShardedTable). Beside it call_keys (ensureCallKeys).
 */
export async function ensureHistorySchema(store: HistoryStore): Promise<void> {
  await ensureMonthTable(store, "calls", HISTORY_CALL_COLUMNS, "billing_group_id, start_time, id");
  await ensureCallKeys(store);
}

/**
 * call_keys: CALL_KEY_COLUMNS of every call, sorted by (start_time, id) and partitioned as calls, so a platform page
 * reads its keys from the newest granules of a month instead of every group's slice of it. Fed by a materialized view
 * on calls (on each shard's calls_local), so whatever inserts calls (the move) writes its keys in the same insert;
 * partition drops take both (dropMonthPartition), erasure deletes from both. Created with a cluster as calls is
 * (call_keys_local, Distributed call_keys). Months already in calls when it is first created (moved before it
 * existed) are copied in once, after the feed exists, so no call is missed; a call inserted meanwhile is in it twice,
 * which ReplacingMergeTree merges away and the page's key read (DISTINCT) never shows. The view call_keys_ready, made
 * on the entry server once every shard is copied, is what lets reads use it (historyKeysReady); a copy that failed
 * is done again, whole, by the next call.
 */
async function ensureCallKeys(store: HistoryStore): Promise<void> {
  if (await tableExists(store.client, store.database, CALL_KEYS_READY)) return;
  await ensureMonthTable(store, CALL_KEYS, CALL_KEY_COLUMNS, "start_time, id", "ReplacingMergeTree");
  const columns = CALL_KEY_COLUMNS.map((c) => c.name).join(", ");
  const [keys, calls] = [`${store.database}.${localName(store, CALL_KEYS)}`, localCallsTable(store)];
  for (const shard of store.shards) {
    await shard.command({
      query: `CREATE MATERIALIZED VIEW IF NOT EXISTS ${store.database}.${CALL_KEYS_FEED} TO ${keys}
              AS SELECT ${columns} FROM ${calls}`,
    });
    // A month per statement: a whole table of 20 M calls took longer than the client's request timeout under load.
    const parts = await shard.query({
      query: `SELECT DISTINCT partition FROM system.parts
              WHERE database = '${store.database}' AND table = '${localCallsName(store)}' AND active`,
      format: "JSONEachRow",
    });
    for (const { partition } of await parts.json<{ partition: string }>()) {
      const month = Date.UTC(Math.floor(Number(partition) / 100), (Number(partition) % 100) - 1, 1);
      await shard.command({
        query: `INSERT INTO ${keys} (${columns}) SELECT ${columns} FROM ${calls}
                WHERE start_time >= ${month} AND start_time < ${utcMonthStart(month, 1)}`,
      });
    }
  }
  await store.client.command({
    query: `CREATE VIEW IF NOT EXISTS ${store.database}.${CALL_KEYS_READY} AS SELECT 1 AS ready`,
  });
}

const keysReady = new WeakMap<HistoryStore, true>();
/** Whether call_keys holds every call (ensureCallKeys finished): asked until it says yes, then remembered. */
export async function historyKeysReady(store: HistoryStore): Promise<boolean> {
  if (keysReady.has(store)) return true;
  const ready = await tableExists(store.client, store.database, CALL_KEYS_READY);
  if (ready) keysReady.set(store, true);
  return ready;
}

/** A calls row of history as ClickHouse answers it in JSON (Int64 as strings), decoded as PostgreSQL's calls row is. */
export function historyRowToStoredCall(row: Record<string, unknown>): StoredCall {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(calls))) {
    const value = row[column.name];
    if (value === null || value === undefined) out[key] = null;
    else if (column.columnType === "PgTimestamp") out[key] = new Date(Number(value));
    else if (column.columnType === "PgBoolean") out[key] = Number(value) === 1;
    else if (column.columnType === "PgBigInt64") out[key] = BigInt(value as string);
    else if (column.columnType === "PgBigInt53") out[key] = Number(value);
    else out[key] = value;
  }
  return out as StoredCall;
}
