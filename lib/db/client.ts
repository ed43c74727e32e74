import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { databaseUrl, dataDir } from "@/lib/config/env";
import { restrictUmask, securePrivateDir } from "@/lib/config/private-dir";
import * as schema from "./schema";
import { acquireLock, releaseLock, type DataDirLock } from "./data-dir-lock";
import { releaseDeadClients } from "./release-dead-clients";
import { ensureOpenWindow } from "./call-partitions";

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
}

const GLOBAL_KEY = Symbol.for("callbook.db");
type GlobalWithDb = typeof globalThis & { [GLOBAL_KEY]?: Promise<DbHandle> };

export function migrationsFolder(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), "lib/db/migrations");
}

/**
 * The one database handle of this process. Kept on globalThis so that `next dev` hot reloads
 * and separately bundled route modules share it: PGlite must never be opened twice.
 */
export function getDbHandle(options: OpenOptions = {}): Promise<DbHandle> {
  const g = globalThis as GlobalWithDb;
  if (process.env.NEXT_PHASE === "phase-production-build") {
    throw new Error("The database is not available while `next build` runs.");
  }
  g[GLOBAL_KEY] ??= openDatabase({ url: databaseUrl(), dir: dataDir(), ...options }).catch((e) => {
    g[GLOBAL_KEY] = undefined; // let the next request retry (e.g. PostgreSQL came back)
    throw e;
  });
  return g[GLOBAL_KEY];
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const g = globalThis as GlobalWithDb;
  const handle = g[GLOBAL_KEY];
  g[GLOBAL_KEY] = undefined;
  if (handle) await (await handle).close();
}

/** Opens a database and applies migrations. Most code wants getDbHandle(); tests open their own. */
export async function openDatabase(options: OpenOptions): Promise<DbHandle> {
  return options.url ? openPostgres(options.url) : openPglite(options);
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

  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.PG_POOL_MAX || 10),
    connectionTimeoutMillis: 5_000,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // A connection dropped while checked out (pg_terminate_backend, network loss) emits 'error' on its
  // client, where the pool listens only while it is idle: unheard, that is an uncaughtException that
  // can leave the pool stuck. The query in flight still fails (-> 503); the pool discards the client.
  pool.on("connect", (client) => client.on("error", () => undefined));
  releaseDeadClients(pool);
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return { db, engine: "postgres", close: () => pool.end() };
}

async function openPglite(options: OpenOptions): Promise<DbHandle> {
  const dir = options.dir ?? dataDir();
  const inMemory = dir.startsWith("memory://");
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  if (inMemory) {
    const client = await PGlite.create(dir, { extensions: { pg_trgm } });
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
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** The PGlite client behind `db` when it is the embedded database itself (a transaction has none). */
interface PgliteClient {
  execProtocol: unknown;
  query<R>(text: string, params: unknown[], options: { rowMode: "array" }): Promise<{ rows: R[] }>;
}
function pgliteClientOf(db: Executor): PgliteClient | undefined {
  const client = (db as { $client?: unknown }).$client;
  return typeof client === "object" && client !== null && "execProtocol" in client ? (client as PgliteClient) : undefined;
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
 * (issue 12, the listing). It then bypasses Drizzle's logger too. Elsewhere through Drizzle.
 */
export async function queryTextColumn(db: Executor, query: SQL): Promise<string[]> {
  const client = pgliteClientOf(db);
  if (client) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return (await client.query<[string]>(text, params, { rowMode: "array" })).rows.map((r) => r[0]);
  }
  return (await queryRows<Record<string, string>>(db, query)).map((r) => Object.values(r)[0]);
}
