import { randomBytes } from "node:crypto";
import fs from "node:fs";
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

/** An empty database, or a copy of `template` (a database no session is connected to). */
export async function createTestDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import("pg")).default;
  const name = `cb_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminPostgresUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
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

/** Where lib/testing/template-databases.ts hands the run's migrated templates to the workers. */
export const PGLITE_TEMPLATE_ENV = "CALLBOOK_TEST_PGLITE_TEMPLATE";
export const POSTGRES_TEMPLATE_ENV = "CALLBOOK_TEST_POSTGRES_TEMPLATE";

/**
 * A migrated, empty database on the given engine. close() also drops the PostgreSQL database. Under the unit
 * project it is a copy of the run's migrated template (lib/testing/template-databases.ts); openDatabase then finds
 * every migration applied and only checks the calls' partitions.
 */
export async function openTestDb(engine: Engine): Promise<DbHandle> {
  if (engine === "pglite") {
    const template = process.env[PGLITE_TEMPLATE_ENV];
    return openDatabase({
      dir: "memory://",
      loadDataDir: template ? new Blob([fs.readFileSync(template)]) : undefined,
    });
  }
  const { url, drop } = await createTestDatabase(process.env[POSTGRES_TEMPLATE_ENV] || undefined);
  const handle = await openDatabase({ url });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await drop();
    },
  };
}
