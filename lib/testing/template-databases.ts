import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import { adminPostgresUrl, createTestDatabase, PGLITE_TEMPLATE_ENV, POSTGRES_TEMPLATE_ENV } from "./engines";

/**
 * Vitest global setup of the unit project: one migrated database per engine, made once per run, that every test's
 * openTestDb copies instead of running all migrations again (~1.4 s of CPU per PGlite database on a 2-core machine).
 * PGlite: a dump of its data directory in a file; PostgreSQL: a database that CREATE DATABASE ... TEMPLATE copies.
 * Handed to the workers through the environment (PGLITE_TEMPLATE_ENV, POSTGRES_TEMPLATE_ENV); when either is
 * missing (PostgreSQL down, a bench), openTestDb migrates a fresh database as before.
 */

export default async function setup(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "callbook-template-"));
  const file = path.join(dir, "pglite.tar");
  const pglite = await openDatabase({ dir: "memory://" });
  try {
    const client = (pglite.db as unknown as { $client: { dumpDataDir(c: "none"): Promise<Blob> } }).$client;
    fs.writeFileSync(file, Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer()));
  } finally {
    await pglite.close();
  }
  process.env[PGLITE_TEMPLATE_ENV] = file;

  let dropTemplate: (() => Promise<void>) | undefined;
  try {
    const { url, drop } = await createTestDatabase();
    await (await openDatabase({ url })).close(); // migrated, partitions around now; no session left on it
    process.env[POSTGRES_TEMPLATE_ENV] = new URL(url).pathname.slice(1);
    dropTemplate = drop;
  } catch (e) {
    console.warn(`no PostgreSQL template database (${adminPostgresUrl()}): ${(e as Error).message}`);
  }

  return async () => {
    await dropTemplate?.();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
