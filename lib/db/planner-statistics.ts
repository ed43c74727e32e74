import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/** Any Drizzle database on either engine (client.ts's Db is one; it imports this module, so not its type). */
type Db = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * Planner statistics of the tables ingest writes (README "Planner statistics"). Nothing else gathers them: PGlite has
 * no autovacuum, and PostgreSQL's autovacuum analyzes each partition but never the partitioned parent `calls`, whose
 * statistics plan every query that spans partitions (the listing: 131 -> 18 ms for a page of 1 000 rows at 60 000
 * calls once analyzed). So every process that writes calls counts the rows it wrote (ingest inserts, rerate updates)
 * and, once they reach ANALYZE_AFTER_ROWS plus ANALYZE_AFTER_SHARE of the calls at the last analyze (autovacuum's rule,
 * with a larger floor), analyzes in the background: after the request that crossed the line has committed and
 * answered, never in its transaction. One process at a time (a transaction-level advisory lock, tried, never waited
 * for: the process holding it gathers the same statistics). The server also analyzes at start what was never
 * analyzed (a database restored or upgraded, rows loaded by hand).
 *
 * A count in the process, not pg_stat's n_mod_since_analyze: PGlite's counters are not flushed as rows are written,
 * and on PostgreSQL autovacuum resets the partitions' counters when it analyzes them, never the parent's. With several
 * processes each counts its own writes, so statistics may lag by up to that many times the share.
 */
export const ANALYZE_AFTER_ROWS = 1_000;
export const ANALYZE_AFTER_SHARE = 0.1;
/**
 * After an analyze that took t, the next one waits until ANALYZE_REST_FACTOR * t has passed (autovacuum has its
 * naptime for the same reason): an analyze never takes more than a twentieth of the time. Without it a fresh database
 * taking a stream of batches was analyzed 17 times in its first 62 500 calls, each analyze reading most of calls
 * (and, without autovacuum, the other five tables): 62 500 calls ingested in process on PostgreSQL took 45 s against
 * 16 s without any analyze in one run, 156 s against 103 s in another (a busy machine, two runs only). With a tenth
 * (9), the analyzes of a fresh database's first 62 500 posted calls were still 6-7 ms of the database's 52-53 ms of
 * CPU per 1 000 calls (bench/ingest-fresh.ts, analyze held off by its advisory lock: 46 ms), all of ingest's
 * difference from the release before planner statistics. A line crossed while resting is analyzed when the rest ends.
 */
export const ANALYZE_REST_FACTOR = 19;
const ANALYZE_LOCK = 727_276;

/** `calls` always (ANALYZE on the parent recurses into its partitions); the rest where no autovacuum runs. */
const CALLS = "calls";
const PLAIN_TABLES = ["call_uuids", "ledger_entries", "usage_hourly", "usage_daily", "usage_quarter"] as const;

/**
 * The columns analyzed, where not all: those a query filters, joins, groups or orders on (lib/calls' listing, usage
 * sums and period usage, rerate's scope, the ledger's history). Statistics of the other columns (prices, codecs,
 * durations, the uuid) plan nothing, and computing them was most of an analyze's cost: calls at 63 000 rows, 440-590
 * -> 250-270 ms of the backend's CPU for these columns with the uuid (the uuid and from_number are 80-90 of those);
 * ledger_entries 60-70 -> 30-50 ms (README "Planner statistics"). A query that starts to filter on another column
 * adds it here.
 */
export const ANALYZED_COLUMNS: Partial<Record<string, readonly string[]>> = {
  calls: [
    "id",
    // Not uuid: a call is found by its uuid through call_uuids' primary key (list-calls.ts), never by calls' own.
    "billing_group_id",
    "direction",
    "from_number",
    "to_number",
    "start_time",
    "answer_time",
    "hangup_cause",
    "currency",
    "rated",
    "matched_prefix",
    "supplier_id",
  ],
  ledger_entries: ["id", "billing_group_id", "kind", "call_id", "created_at"],
};

/** `table (columns)`, or the table alone where every column is analyzed. */
function analyzeTarget(table: string): string {
  const columns = ANALYZED_COLUMNS[table];
  return columns ? `${table} (${columns.join(", ")})` : table;
}

interface Keeper {
  db: Db;
  embedded: boolean;
  /** PostgreSQL's autovacuum setting, read at the first analyze. */
  autovacuum?: boolean;
  /** Rows of calls written by this process since its last analyze. */
  written: number;
  /** calls' rows at the last analyze (pg_class.reltuples of the parent); 0 before the first. */
  baseline: number;
  running?: Promise<void>;
  /** Date.now() before which no analyze starts (0: any time), and the timer that starts the one waiting for it. */
  restUntil: number;
  waiting?: NodeJS.Timeout;
  closed: boolean;
  lastError?: { message: string; at: number };
}

/**
 * On the database client object under a global symbol, not in a module-level map: Next bundles this module into
 * several route chunks, and every chunk must count into the same keeper (as client.ts keeps planOnce).
 */
const KEEPER = Symbol.for("callbook.plannerStatistics");
/** Rows of a raw query; both drivers answer `{ rows }` (as client.ts's queryRows reads them). */
const rowsOf = async <T>(query: Promise<unknown>) => ((await query) as { rows: T[] }).rows;
const clientOf = (db: Db) => ((db as { $client?: object }).$client ?? db) as { [KEEPER]?: Keeper };

/** At open (client.ts): this database's writes are counted and its statistics kept. */
export function keepPlannerStatistics(db: Db, engine: "pglite" | "postgres"): void {
  clientOf(db)[KEEPER] ??= {
    db,
    embedded: engine === "pglite",
    written: 0,
    baseline: 0,
    restUntil: 0,
    closed: false,
  };
}

/** At close (client.ts): no new analyze starts; the one running finishes first. */
export async function stopPlannerStatistics(db: Db): Promise<void> {
  const keeper = clientOf(db)[KEEPER];
  if (!keeper) return;
  keeper.closed = true;
  clearTimeout(keeper.waiting);
  keeper.waiting = undefined;
  await keeper.running;
}

/** Resolves when no analyze of this database runs (tests). */
export async function plannerStatisticsIdle(db: Db): Promise<void> {
  await clientOf(db)[KEEPER]?.running;
}

/** After a transaction that wrote `rows` calls has committed. Never waits: the analyze runs in the background. */
export function noteCallsWritten(db: Db, rows: number): void {
  const keeper = clientOf(db)[KEEPER];
  if (!keeper || rows <= 0) return;
  keeper.written += rows;
  if (keeper.written >= ANALYZE_AFTER_ROWS + ANALYZE_AFTER_SHARE * keeper.baseline) analyzeAfterRest(keeper);
}

/** Analyzes now, or when the rest after the last analyze ends (one timer, whatever is written meanwhile). */
function analyzeAfterRest(keeper: Keeper): void {
  const wait = keeper.restUntil - Date.now();
  if (wait <= 0) {
    void start(keeper, () => analyze(keeper));
    return;
  }
  if (keeper.waiting || keeper.closed) return;
  keeper.waiting = setTimeout(() => {
    keeper.waiting = undefined;
    analyzeAfterRest(keeper);
  }, wait);
  keeper.waiting.unref();
}

/**
 * At server start: the tables never analyzed (pg_class.reltuples < 0), analyzed in the background; also reads the
 * size calls had at its last analyze, the base of the share. Resolves when done, answering what was analyzed.
 */
export function gatherMissingStatistics(db: Db): Promise<string[]> {
  const keeper = clientOf(db)[KEEPER];
  if (!keeper) return Promise.resolve([]);
  let analyzed: string[] = [];
  return start(keeper, async () => {
    const tables = await tablesToKeep(keeper);
    const rows = await rowsOf<{ name: string; tuples: number }>(
      keeper.db.execute(
        sql`SELECT relname AS name, reltuples::float8 AS tuples FROM pg_class
            WHERE relnamespace = 'public'::regnamespace AND relname IN (SELECT json_array_elements_text(${JSON.stringify(tables)}::json))`,
      ),
    );
    keeper.baseline = Math.max(0, Number(rows.find((r) => r.name === CALLS)?.tuples ?? 0));
    const missing = rows.filter((r) => Number(r.tuples) < 0).map((r) => r.name);
    if (missing.length > 0 && (await analyzeTables(keeper, missing))) analyzed = missing;
  }).then(() => analyzed);
}

/** Runs `task` unless one runs already or the database is closing; failures are logged, never thrown. */
function start(keeper: Keeper, task: () => Promise<void>): Promise<void> {
  if (keeper.running || keeper.closed) return keeper.running ?? Promise.resolve();
  const running = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => (keeper.closed ? undefined : task()))
    .catch((e) => logFailure(keeper, e))
    .finally(() => {
      keeper.running = undefined;
    });
  keeper.running = running;
  return running;
}

async function analyze(keeper: Keeper): Promise<void> {
  const counted = keeper.written;
  keeper.written = 0;
  const started = Date.now();
  try {
    await analyzeTables(keeper, await tablesToKeep(keeper));
  } catch (e) {
    keeper.written += counted; // tried again after the next write
    throw e;
  } finally {
    keeper.restUntil = Date.now() + ANALYZE_REST_FACTOR * (Date.now() - started);
  }
  const [row] = await rowsOf<{ tuples: number }>(
    keeper.db.execute(sql`SELECT reltuples::float8 AS tuples FROM pg_class WHERE oid = 'calls'::regclass`),
  );
  keeper.baseline = Math.max(0, Number(row?.tuples ?? 0));
}

/** ANALYZE under the advisory lock, if no other process holds it. Answers whether it ran. */
async function analyzeTables(keeper: Keeper, tables: readonly string[]): Promise<boolean> {
  return keeper.db.transaction(async (tx) => {
    const [{ locked }] = await rowsOf<{ locked: boolean }>(
      tx.execute(sql`SELECT pg_try_advisory_xact_lock(${ANALYZE_LOCK}) AS locked`),
    );
    if (!locked) return false;
    await tx.execute(sql.raw(`ANALYZE ${tables.map(analyzeTarget).join(", ")}`));
    return true;
  });
}

async function tablesToKeep(keeper: Keeper): Promise<string[]> {
  if (!keeper.embedded && keeper.autovacuum === undefined) {
    const [row] = await rowsOf<{ on: boolean }>(
      keeper.db.execute(sql`SELECT current_setting('autovacuum') = 'on' AS on`),
    );
    keeper.autovacuum = row.on;
  }
  return keeper.embedded || !keeper.autovacuum ? [CALLS, ...PLAIN_TABLES] : [CALLS];
}

/** Once per distinct error per minute: a database outage must not flood the log at every batch. */
function logFailure(keeper: Keeper, e: unknown): void {
  const message = (e as Error)?.message ?? String(e);
  const last = keeper.lastError;
  if (last && last.message === message && Date.now() - last.at < 60_000) return;
  keeper.lastError = { message, at: Date.now() };
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), event: "planner statistics not gathered", error: message })}\n`,
  );
}
