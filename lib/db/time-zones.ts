import { sql } from "drizzle-orm";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { queryRows, type Executor } from "./client";

// The zone names the database itself knows (pg_timezone_names): Node's Intl and the database ship different
// tz releases, so a name Intl accepts (US/Pacific-New, dropped from tzdata in 2020) can still make
// `AT TIME ZONE` fail (22023), which answered 500. Read once per database per process (about 600 names on
// PGlite, 1 200 on PostgreSQL; some 70 ms), once per process (processSingleton) so every route bundle shares the
// one read.
const readsByDb = () =>
  processSingleton("databaseTimeZones", () => new WeakMap<object, Promise<ReadonlySet<string>>>());

/** The database's zone names, lower case (PostgreSQL looks zone names up ignoring case). */
export function databaseTimeZones(db: Executor): Promise<ReadonlySet<string>> {
  const byDb = readsByDb();
  let zones = byDb.get(db);
  if (!zones) {
    zones = queryRows<{ name: string }>(db, sql`SELECT name FROM pg_timezone_names`).then(
      (rows) => new Set(rows.map((r) => r.name.toLowerCase())),
    );
    byDb.set(db, zones);
    // A failed read (database unreachable) is not remembered: the next request reads again.
    zones.catch(() => byDb.delete(db));
  }
  return zones;
}

/** Whether `AT TIME ZONE zone` works on this database. */
export async function isDatabaseTimeZone(db: Executor, zone: string): Promise<boolean> {
  return (await databaseTimeZones(db)).has(zone.toLowerCase());
}
