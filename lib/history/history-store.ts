import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import { getTableColumns } from "drizzle-orm";
import type { HistorySettings } from "@/lib/config/env";
import type { StoredCall } from "@/lib/calls/stored-call";
import { calls } from "@/lib/db/schema";

// The history tier's store: ClickHouse over HTTP (@clickhouse/client), tested with Debian's 18.16 and meant for the
// releases after it, so only SQL both accept: no DateTime64 (instants are Int64 epoch milliseconds, UTC), no Nullable
// in the sorting key, MergeTree partitions dropped with ALTER TABLE ... DROP PARTITION (docs/contract.md "History tier").

/** An open history store: the client and the database its tables are in (every statement names it). */
export interface HistoryStore {
  client: ClickHouseClient;
  database: string;
  close(): Promise<void>;
}

export function openHistoryStore(settings: Pick<HistorySettings, "url" | "database">): HistoryStore {
  // The client's own log stays quiet: errors are thrown. No keep-alive: ClickHouse closes an idle connection after
  // its keep_alive_timeout (3 s), and a request sent on one it just closed fails with "socket hang up" (seen in
  // the tests); a connection per request costs little next to a batch of calls or a listing's query.
  const client = createClient({
    url: settings.url,
    request_timeout: 300_000,
    keep_alive: { enabled: false },
    log: { level: ClickHouseLogLevel.OFF },
  });
  return { client, database: settings.database, close: () => client.close() };
}

type CallColumn = ReturnType<typeof getTableColumns<typeof calls>>[keyof typeof calls.$inferSelect];

/** ClickHouse's type of one calls column: instants as epoch milliseconds, booleans as 0/1, int8 as Int64. */
function clickHouseType(column: CallColumn): string {
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
        throw new Error(`no ClickHouse type for calls.${(column as { name: string }).name}`);
    }
  })();
  return column.notNull ? base : `Nullable(${base})`;
}

/** Every column of PostgreSQL's calls, in its order, with its ClickHouse type: a column added there is added here. */
export const HISTORY_CALL_COLUMNS: readonly { name: string; type: string; instant: boolean; int8: boolean }[] =
  Object.values(getTableColumns(calls)).map((column) => ({
    name: column.name,
    type: clickHouseType(column as CallColumn),
    instant: column.columnType === "PgTimestamp",
    int8: column.columnType === "PgBigInt64" || column.columnType === "PgBigInt53",
  }));

export const callsTable = (store: HistoryStore) => `${store.database}.calls`;

/** A UTC month's partition of history's calls (toYYYYMM of its first instant: 202611). */
export const monthPartition = (month: Date) => month.getUTCFullYear() * 100 + month.getUTCMonth() + 1;

/**
 * Creates the history database and its calls table when absent: MergeTree, one partition per UTC month, sorted by
 * (billing_group_id, start_time, id) as PostgreSQL's primary key, so a group's calls of a month read as one range.
 */
export async function ensureHistorySchema(store: HistoryStore): Promise<void> {
  await store.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${store.database}` });
  const columns = HISTORY_CALL_COLUMNS.map((c) => `${c.name} ${c.type}`).join(", ");
  await store.client.command({
    query: `CREATE TABLE IF NOT EXISTS ${callsTable(store)} (${columns})
            ENGINE = MergeTree PARTITION BY toYYYYMM(toDateTime(intDiv(start_time, 1000), 'UTC'))
            ORDER BY (billing_group_id, start_time, id)`,
  });
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
