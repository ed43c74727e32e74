import { randomBytes } from "node:crypto";
import { openDatabase, type DbHandle } from "@/lib/db/client";

/**
 * The two engines every data-layer test runs on. PostgreSQL gets a fresh database per call
 * (created on the local server, dropped by the returned close), so parallel runs never collide.
 */
export type Engine = "pglite" | "postgres";
export const ENGINES: Engine[] = ["pglite", "postgres"];

export function adminPostgresUrl(): string {
  return process.env.TEST_POSTGRES_URL || "postgres://root@127.0.0.1:5432/test";
}

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import("pg")).default;
  const name = `cb_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminPostgresUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminPostgresUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminPostgresUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A migrated, empty database on the given engine. close() also drops the PostgreSQL database. */
export async function openTestDb(engine: Engine): Promise<DbHandle> {
  if (engine === "pglite") return openDatabase({ dir: "memory://" });
  const { url, drop } = await createTestDatabase();
  const handle = await openDatabase({ url });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await drop();
    },
  };
}
