import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { calls } from "@/lib/db/schema";

// The stored call: a row of `calls` (partitioned by UTC month, migration 0008), its columns, insert and decoding
// derived from the schema. Triggers on calls, in the writing statement's transaction: the usage rollups on INSERT,
// UPDATE, DELETE and TRUNCATE (lib/usage/triggers.ts), and the settlement of open authorizations on INSERT
// (lib/authorizations/triggers.ts). call_uuids (the per-group uuid claim of ingest) has none.

/** A calls row as Drizzle decodes it. */
export type StoredCall = typeof calls.$inferSelect;

const CALL_TABLE_COLUMNS = Object.entries(getTableColumns(calls));
type CallTableColumn = (typeof CALL_TABLE_COLUMNS)[number];

/** Columns for raw SQL, aliased to their property names; int8 as text so it stays exact on both engines. */
const selectList = (columns: readonly CallTableColumn[]): SQL =>
  sql.raw(
    columns
      .map(([key, column]) =>
        column.columnType === "PgBigInt64"
          ? `calls."${column.name}"::text AS "${key}"`
          : `calls."${column.name}" AS "${key}"`,
      )
      .join(", "),
  );

/** A raw row selected with selectList, decoded by Drizzle's own column mappers (dates, bigints). */
function decodeRow(columns: readonly CallTableColumn[], raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = raw[key];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out;
}

/**
 * Every calls column for raw SQL, aliased to its property name; int8 as text so it stays exact on
 * both engines (PGlite answers int8 as a JS number). Decode the rows with toStoredCall.
 */
export const CALL_COLUMNS: SQL = selectList(CALL_TABLE_COLUMNS);

/** A raw row selected with CALL_COLUMNS, decoded by Drizzle's own column mappers (dates, bigints). */
export function toStoredCall(raw: Record<string, unknown>): StoredCall {
  return decodeRow(CALL_TABLE_COLUMNS, raw) as StoredCall;
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
const ENCODE = { toIso, toText } as const;

const recordsetColumn = ([key, column]: CallTableColumn) => ({
  key: key as keyof NewStoredCall,
  name: column.name,
  type: recordsetType(column),
  encode:
    column.columnType === "PgTimestamp"
      ? ("toIso" as const)
      : column.columnType === "PgBigInt64"
        ? ("toText" as const)
        : null,
});

const INSERT_COLUMNS = CALL_TABLE_COLUMNS.filter(([, column]) => !column.hasDefault).map(recordsetColumn);

/**
 * The insert of calls from one JSON array, built once from the table (adding a column is one edit in
 * lib/db/schema.ts): `INSERT INTO calls (<columns>) SELECT x.* FROM json_to_recordset($json) AS x(<typed
 * columns>)`. Rows come from callsToRecordsetJson.
 */
export const CALL_INSERT_COLUMNS: SQL = sql.raw(INSERT_COLUMNS.map((c) => c.name).join(", "));
export const CALL_RECORDSET_COLUMNS: SQL = sql.raw(INSERT_COLUMNS.map((c) => `${c.name} ${c.type}`).join(", "));

/** A call given in parts (e.g. its content, its rating, its duration and currency): no copying into one object. */
export type CallParts = readonly [object, ...object[]];
type PartsEncoder = (parts: CallParts) => object;

const encoders = new Map<string, PartsEncoder>();

/**
 * One call as the object json_to_recordset reads, compiled once per shape of the parts into a plain
 * object literal (`p => ({ "uuid": p[0]["uuid"], "start_time": toIso(p[0]["startTime"]), ... })`, each
 * column read from the part that holds it). This runs for every ingested call: a literal of fixed shape
 * costs what the hand-written one did, where merging the parts with a spread cost ~30 us a call.
 * Names and keys are the schema's own, quoted with JSON.stringify.
 */
function encoderFor(parts: CallParts): PartsEncoder {
  const shape = parts.map((p) => Object.keys(p).join(",")).join("|");
  let encoder = encoders.get(shape);
  if (!encoder) {
    const fields = INSERT_COLUMNS.map(({ key, name, encode }) => {
      const at = parts.findIndex((p) => Object.hasOwn(p, key));
      if (at < 0) throw new Error(`no part of the call holds ${key}`);
      const read = `p[${at}][${JSON.stringify(key)}]`;
      return `${JSON.stringify(name)}: ${encode === null ? read : `${encode}(${read})`}`;
    });
    encoder = new Function("toIso", "toText", `return (p) => ({ ${fields.join(", ")} });`)(
      toIso,
      toText,
    ) as PartsEncoder;
    encoders.set(shape, encoder);
  }
  return encoder;
}

/** The JSON array for CALL_RECORDSET_COLUMNS: SQL names as keys, instants as ISO text, bigints as exact text. */
export function callsToRecordsetJson(rows: readonly CallParts[]): string {
  if (rows.length === 0) return "[]";
  return JSON.stringify(rows.map(encoderFor(rows[0])));
}

/** Some calls columns by property name (e.g. a call's rating) for raw SQL: read them, and set them from JSON. */
export interface CallColumnSet<K extends keyof NewStoredCall> {
  /** The columns aliased to their property names, int8 as text: decode the rows with `decode`. */
  select: SQL;
  decode(raw: Record<string, unknown>): Pick<StoredCall, K>;
  /** `UPDATE calls SET ${set} FROM json_to_recordset($json) AS x(id bigint, ${recordset}) WHERE calls.id = x.id`. */
  set: SQL;
  recordset: SQL;
  /** One call's values as that recordset reads them: SQL names as keys, instants as ISO text, bigints as exact text. */
  toRecord(values: Pick<NewStoredCall, K>): Record<string, unknown>;
}

export function callColumnSet<K extends keyof NewStoredCall>(keys: readonly K[]): CallColumnSet<K> {
  const byKey = new Map(CALL_TABLE_COLUMNS);
  const columns = keys.map((key): CallTableColumn => {
    const column = byKey.get(key);
    if (!column) throw new Error(`calls has no column ${key}`);
    return [key, column];
  });
  const recordset = columns.map(recordsetColumn);
  return {
    select: selectList(columns),
    decode: (raw) => decodeRow(columns, raw) as Pick<StoredCall, K>,
    set: sql.raw(recordset.map((c) => `"${c.name}" = x."${c.name}"`).join(", ")),
    recordset: sql.raw(recordset.map((c) => `"${c.name}" ${c.type}`).join(", ")),
    toRecord(values) {
      const out: Record<string, unknown> = {};
      for (const { key, name, encode } of recordset) {
        const value = values[key as K] as never;
        out[name] = encode === null ? value : ENCODE[encode](value);
      }
      return out;
    },
  };
}
