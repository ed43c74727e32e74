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
