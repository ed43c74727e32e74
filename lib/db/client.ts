import { createHash } from "node:crypto";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { entityKind, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { databaseUrl, dataDir, isBuildPhase, pgPoolMax, preparedStatementsEnabled } from "@/lib/config/env";
import { restrictUmask, securePrivateDir } from "@/lib/config/private-dir";
import { processSingleton } from "@/lib/runtime/process-singleton";
import * as schema from "./schema";
import { acquireLock, releaseLock, type DataDirLock } from "./data-dir-lock";
import { releaseDeadClients } from "./release-dead-clients";
import { ensureOpenWindow } from "./call-partitions";
import { keepPlannerStatistics, stopPlannerStatistics } from "./planner-statistics";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything that can run a query: the database or an open transaction. */
export type Executor = Db | Tx;

export interface DbHandle {
  db: Db;
  engine: "pglite" | "postgres";
  /** Present on the embedded engine: who holds the data directory (this process). */
  lock?: DataDirLock;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL URL; when absent the embedded engine is used. */
  url?: string;
  /** PGlite data directory; "memory://" for a throwaway in-memory database (tests). */
  dir?: string;
  role?: DataDirLock["role"];
  port?: number;
  /** With "memory://" only: start from this PGlite data directory (dumpDataDir) instead of an empty one (tests). */
  loadDataDir?: Blob;
}

/** The process's database handle, cleared when opening it failed or it was closed. */
const dbSlot = () => processSingleton("db", (): { handle?: Promise<DbHandle> } => ({}));

export function migrationsFolder(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/migrations");
}

/**
 * The one database handle of this process (processSingleton), so that `next dev` hot reloads and separately
 * bundled route modules share it: PGlite must never be opened twice.
 */
export function getDbHandle(options: OpenOptions = {}): Promise<DbHandle> {
  const slot = dbSlot();
  if (isBuildPhase()) {
    throw new Error("The database is not available while `next build` runs.");
  }
  slot.handle ??= openDatabase({ url: databaseUrl(), dir: dataDir(), ...options }).catch((e) => {
    slot.handle = undefined; // let the next request retry (e.g. PostgreSQL came back)
    throw e;
  });
  return slot.handle;
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const slot = dbSlot();
  const handle = slot.handle;
  slot.handle = undefined;
  if (handle) await (await handle).close();
}

/** Opens a database and applies migrations. Most code wants getDbHandle(); tests open their own. */
export async function openDatabase(options: OpenOptions): Promise<DbHandle> {
  const handle = await (options.url ? openPostgres(options.url) : openPglite(options));
  // The planner statistics of what this process writes (planner-statistics.ts); closing lets a running analyze end.
  keepPlannerStatistics(handle.db, handle.engine);
  return {
    ...handle,
    close: async () => {
      await stopPlannerStatistics(handle.db);
      await handle.close();
    },
  };
}

async function openPostgres(url: string): Promise<DbHandle> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  // Raw queries return int8 as bigint here; PGlite returns a number when it fits and a bigint when it
  // does not. Readers of raw int8 columns convert explicitly (BigInt()/Number()) so both engines agree.
  pg.types.setTypeParser(20, (v: string) => BigInt(v));

  // Migrate on one session holding an advisory lock, so parallel starts don't race.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(727274)");
    const migrating = drizzle({ client, schema });
    await migrate(migrating, { migrationsFolder: migrationsFolder() });
    await ensureOpenWindow(migrating); // calls' monthly partitions around now (still under the lock)
  } finally {
    await client.query("SELECT pg_advisory_unlock(727274)").catch(() => undefined);
    await client.end();
  }

  const openPool = (session?: { options: string; application_name: string }) => {
    const pool = new pg.Pool({
      connectionString: url,
      max: pgPoolMax(),
      connectionTimeoutMillis: 5_000,
      ...session,
    });
    // A dropped idle connection must not crash the process; the pool replaces it.
    pool.on("error", () => undefined);
    // A connection dropped while checked out (pg_terminate_backend, network loss) emits 'error' on its
    // client, where the pool listens only while it is idle: unheard, that is an uncaughtException that
    // can leave the pool stuck. The query in flight still fails (-> 503); the pool discards the client.
    pool.on("connect", (client) => client.on("error", () => undefined));
    releaseDeadClients(pool);
    return pool;
  };
  const pool = openPool();
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  // Connections are opened on first use: a process that never asks for planOnce(db) opens none.
  // Named in pg_stat_activity, so an operator (and the API test) can tell its connections apart.
  const planOncePool = openPool({
    options: "-c plan_cache_mode=force_generic_plan",
    application_name: "callbook-plan-once",
  });
  // Marks what namedStatement names statements on: the pool itself, and each client it checks out (a transaction's).
  markPlanOnce(planOncePool);
  planOncePool.on("connect", markPlanOnce);
  Object.defineProperty(db, PLAN_ONCE, { value: drizzle({ client: planOncePool, schema }) as unknown as Db });
  return { db, engine: "postgres", close: async () => void (await Promise.all([pool.end(), planOncePool.end()])) };
}

/**
 * Where a handle keeps its planOnce database: on the object itself under a global symbol, not in a module-level
 * map, since Next bundles this module into several route chunks and the chunk that opened the handle is not
 * always the one that asks.
 */
const PLAN_ONCE = Symbol.for("callbook.planOnce");
const PLAN_ONCE_CONNECTION = Symbol.for("callbook.planOnceConnection");
const markPlanOnce = (poolOrClient: object) =>
  void Object.defineProperty(poolOrClient, PLAN_ONCE_CONNECTION, { value: true });

/**
 * The same PostgreSQL database, on connections that plan each named statement once and reuse that plan
 * (plan_cache_mode=force_generic_plan), for statements whose best plan does not depend on their values: ingest's
 * (key lookups, inserts from a JSON recordset, an update by primary key). PostgreSQL otherwise plans them again at
 * every call. Never for a listing or search: a generic plan cannot see a `to` pattern, and for a plain page it was
 * 5x slower once many groups' calls spread over several partitions (measured with `npm run bench`).
 * Raw queries (queryRows, queryTextColumn) on it, or in its transactions, run as named statements; everywhere else
 * they are sent unnamed and planned for their values, as Drizzle's execute does.
 * `db` itself on PGlite, on a handle this module did not open (e.g. the replica's), and with
 * PG_PREPARED_STATEMENTS=off. Up to PG_POOL_MAX connections of its own.
 */
export function planOnce<E extends Executor>(db: E): E {
  if (!preparedStatementsEnabled()) return db;
  return (db as unknown as { [PLAN_ONCE]?: E })[PLAN_ONCE] ?? db;
}

async function openPglite(options: OpenOptions): Promise<DbHandle> {
  const dir = options.dir ?? dataDir();
  const inMemory = dir.startsWith("memory://");
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  if (inMemory) {
    const client = await PGlite.create(dir, { extensions: { pg_trgm }, loadDataDir: options.loadDataDir });
    const db = drizzle({ client, schema });
    await migrate(db, { migrationsFolder: migrationsFolder() });
    await ensureOpenWindow(db);
    return { db: db as unknown as Db, engine: "pglite", close: () => client.close() };
  }
  restrictUmask(); // PGlite creates its files with the process umask
  securePrivateDir(dir);
  const lock = await acquireLock(dir, options.role ?? "server", { port: options.port });
  let client: InstanceType<typeof PGlite> | undefined;
  try {
    client = await PGlite.create(path.join(dir, "pgdata"), { extensions: { pg_trgm } });
    securePrivateDir(dir, { quiet: true }); // a new database's initial files are unpacked 0666
    const db = drizzle({ client, schema });
    await migrate(db, { migrationsFolder: migrationsFolder() });
    await ensureOpenWindow(db);
    const opened = client;
    return {
      db: db as unknown as Db,
      engine: "pglite",
      lock,
      close: async () => {
        await opened.close();
        await releaseLock(dir);
      },
    };
  } catch (e) {
    await client?.close().catch(() => undefined);
    await releaseLock(dir); // a failed open must not keep the directory
    throw e;
  }
}

/**
 * Rows of a raw SQL query; both drivers answer `{ rows }`. int8 arrives as bigint (PostgreSQL) or as
 * number-or-bigint (PGlite): convert with BigInt()/Number() when reading it.
 */
export async function queryRows<T>(db: Executor, query: SQL): Promise<T[]> {
  const named = namedStatement(db, query);
  const result = (await (named ? named.execute() : db.execute(query))) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Statement names by SQL text. A name is a hash of its text, never a counter: Next bundles this module into
 * several route chunks, each with its own map, and one name must never stand for two texts on a connection.
 */
const statementNames = new Map<string, string>();
/** Beyond this many distinct texts, queries run unnamed (a text built from values must not grow it forever). */
const MAX_NAMED_STATEMENTS = 500;

interface DrizzleSession {
  prepareQuery(
    query: { sql: string; params: unknown[] },
    fields: undefined,
    name: string,
    arrayMode: false,
  ): { execute(): Promise<unknown> };
}

/**
 * On planOnce's connections (its pool, or a transaction's client from it), a raw query as a named prepared
 * statement: parsed and planned once per connection, not on every call (in `npm run bench`, PostgreSQL's parse and
 * plan of ingest's statements was CPU on the same two cores as Node). Drizzle's own session prepares it, so its type
 * parsers and logger apply as for execute(). Anywhere else: undefined (sent unnamed).
 */
function namedStatement(db: Executor, query: SQL): { execute(): Promise<unknown> } | undefined {
  const session = (db as unknown as { session?: DrizzleSession & { client?: object } }).session;
  // node-postgres only; PGlite's session would ignore the name.
  if (!session || (session.constructor as unknown as Record<symbol, unknown>)[entityKind] !== "NodePgSession")
    return undefined;
  if (!session.client || !(PLAN_ONCE_CONNECTION in session.client)) return undefined;
  const compiled = dialect.sqlToQuery(query);
  let name = statementNames.get(compiled.sql);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED_STATEMENTS) return undefined;
    name = `cb_${createHash("sha1").update(compiled.sql).digest("hex")}`;
    statementNames.set(compiled.sql, name);
  }
  return session.prepareQuery(compiled, undefined, name, false);
}

/** The PGlite client behind `db` when it is the embedded database itself (a transaction has none). */
interface PgliteClient {
  execProtocol: unknown;
  query<R>(text: string, params: unknown[], options: { rowMode: "array" }): Promise<{ rows: R[] }>;
}
function pgliteClientOf(db: Executor): PgliteClient | undefined {
  const client = (db as { $client?: unknown }).$client;
  return typeof client === "object" && client !== null && "execProtocol" in client
    ? (client as PgliteClient)
    : undefined;
}

/** The embedded engine (PGlite: one statement at a time, in this process), as opposed to a PostgreSQL pool. */
export function isEmbedded(db: Executor): boolean {
  return pgliteClientOf(db) !== undefined;
}

const dialect = new PgDialect();

/**
 * The first column of every row of `query`, as text (the query selects text). On PGlite (the database itself,
 * not a transaction) it goes to the client directly: Drizzle's execute passes PGlite its own type parsers, which
 * PGlite merges into a copy of its ~320 on every query, ~0.2 ms of CPU for a result that is text anyway
 * (a profile of the listing). It then bypasses Drizzle's logger too. Elsewhere through Drizzle.
 */
export async function queryTextColumn(db: Executor, query: SQL): Promise<string[]> {
  const client = pgliteClientOf(db);
  if (client) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return (await client.query<[string]>(text, params, { rowMode: "array" })).rows.map((r) => r[0]);
  }
  return (await queryRows<Record<string, string>>(db, query)).map((r) => Object.values(r)[0]);
}
