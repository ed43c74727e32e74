import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * calls is partitioned by UTC month (migration 0008): calls_pYYYYMM, and calls_default for a month without its
 * partition (nothing is ever refused). The SQL function ensure_call_partitions(from, to) creates the missing months
 * (moving any of their rows out of calls_default); this module says when it runs.
 */
type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * At every open: last month to three months ahead, so the month turning over never makes a request wait for DDL.
 * Not more: every partition, even empty, is planned by each query that cannot prune it (the listing's newest-first
 * scans), so older months get a partition only when calls arrive for them (ingest, below) or were migrated.
 */
export const OPEN_WINDOW_MONTHS = { back: 1, ahead: 3 } as const;

/** Start of the UTC month of `t`, plus `add` months, epoch ms. */
export function utcMonthStart(t: number, add = 0): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1);
}

export async function ensureOpenWindow(db: AnyDb, now = Date.now()): Promise<void> {
  const from = new Date(utcMonthStart(now, -OPEN_WINDOW_MONTHS.back)).toISOString();
  const to = new Date(utcMonthStart(now, OPEN_WINDOW_MONTHS.ahead + 1)).toISOString();
  await db.execute(sql`SELECT ensure_call_partitions(${from}::timestamptz, ${to}::timestamptz)`);
  known.set(db, new Set(monthsBetween(Date.parse(from), Date.parse(to))));
}

function monthsBetween(from: number, to: number): number[] {
  const out: number[] = [];
  for (let m = utcMonthStart(from); m < to; m = utcMonthStart(m, 1)) out.push(m);
  return out;
}

/** Months (UTC month starts, epoch ms) this process knows to have their partition, per database handle. */
const known = new WeakMap<object, Set<number>>();

/**
 * Before a batch is stored: any month of its calls this process has not seen gets its partition (one cheap catalog
 * lookup per month when it exists already, once per process). Outside the ingest transaction, so the DDL commits at
 * once and holds its locks for milliseconds. Calls of a month whose partition is missing would still be stored (in
 * calls_default); this keeps them where their month's queries prune to.
 */
export async function ensureCallMonths(db: AnyDb, startsMs: Iterable<number>): Promise<void> {
  let set = known.get(db);
  if (!set) known.set(db, (set = new Set()));
  const missing = new Set<number>();
  for (const t of startsMs) {
    const m = utcMonthStart(t);
    if (!set.has(m)) missing.add(m);
  }
  for (const m of [...missing].sort((a, b) => a - b)) {
    await db.execute(
      sql`SELECT ensure_call_partitions(${new Date(m).toISOString()}::timestamptz, ${new Date(utcMonthStart(m, 1)).toISOString()}::timestamptz)`,
    );
    set.add(m);
  }
}
