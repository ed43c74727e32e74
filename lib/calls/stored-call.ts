import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { calls } from "@/lib/db/schema";

/** A calls row as Drizzle decodes it. */
export type StoredCall = typeof calls.$inferSelect;

const CALL_TABLE_COLUMNS = Object.entries(getTableColumns(calls));

/**
 * Every calls column for raw SQL, aliased to its property name; int8 as text so it stays exact on
 * both engines (PGlite answers int8 as a JS number). Decode the rows with toStoredCall.
 */
export const CALL_COLUMNS: SQL = sql.raw(
  CALL_TABLE_COLUMNS.map(([key, column]) =>
    column.columnType === "PgBigInt64" ? `calls."${column.name}"::text AS "${key}"` : `calls."${column.name}" AS "${key}"`,
  ).join(", "),
);

/** A raw row selected with CALL_COLUMNS, decoded by Drizzle's own column mappers (dates, bigints). */
export function toStoredCall(raw: Record<string, unknown>): StoredCall {
  const out: Record<string, unknown> = {};
  for (const [key, column] of CALL_TABLE_COLUMNS) {
    const value = raw[key];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as StoredCall;
}

/** A call as the application writes it: every column but those the database fills (id, created_at). */
export type NewStoredCall = Omit<StoredCall, "id" | "createdAt">;

/** Column types as json_to_recordset reads them: JSON strings of instants and exact int8 text. */
function recordsetType(column: (typeof CALL_TABLE_COLUMNS)[number][1]): string {
  if (column.columnType === "PgTimestamp") return "timestamptz";
  if (column.columnType === "PgChar") return "text";
  return column.getSQLType();
}

const toIso = (v: Date | null) => (v === null ? null : v.toISOString());
const toText = (v: bigint | null) => (v === null ? null : v.toString());

const INSERT_COLUMNS = CALL_TABLE_COLUMNS.filter(([, column]) => !column.hasDefault).map(([key, column]) => ({
  key: key as keyof NewStoredCall,
  name: column.name,
  type: recordsetType(column),
  encode: column.columnType === "PgTimestamp" ? "toIso" : column.columnType === "PgBigInt64" ? "toText" : null,
}));

/**
 * The insert of calls from one JSON array, built once from the table (adding a column is one edit in
 * lib/db/schema.ts): `INSERT INTO calls (<columns>) SELECT x.* FROM json_to_recordset($json) AS x(<typed
 * columns>)`. Rows come from callsToRecordsetJson.
 */
export const CALL_INSERT_COLUMNS: SQL = sql.raw(INSERT_COLUMNS.map((c) => c.name).join(", "));
export const CALL_RECORDSET_COLUMNS: SQL = sql.raw(INSERT_COLUMNS.map((c) => `${c.name} ${c.type}`).join(", "));

type RowEncoder = (row: NewStoredCall, toIso: (v: Date | null) => string | null, toText: (v: bigint | null) => string | null) => object;

/**
 * One call as the object json_to_recordset reads, compiled once from INSERT_COLUMNS into a plain
 * object literal (`row => ({ "uuid": row["uuid"], "start_time": toIso(row["startTime"]), ... })`):
 * this runs for every ingested call, and a literal of fixed shape stringifies twice as fast as an
 * object filled key by key. Names and keys are the schema's own, quoted with JSON.stringify.
 */
const encodeRow = new Function(
  "row",
  "toIso",
  "toText",
  `return ({ ${INSERT_COLUMNS.map(({ key, name, encode }) => {
    const read = `row[${JSON.stringify(key)}]`;
    return `${JSON.stringify(name)}: ${encode === null ? read : `${encode}(${read})`}`;
  }).join(", ")} });`,
) as RowEncoder;

/** The JSON array for CALL_RECORDSET_COLUMNS: SQL names as keys, instants as ISO text, bigints as exact text. */
export function callsToRecordsetJson(rows: readonly NewStoredCall[]): string {
  return JSON.stringify(rows.map((row) => encodeRow(row, toIso, toText)));
}
