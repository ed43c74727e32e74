import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/lib/testing/engines";
import { releaseDeadClients } from "./release-dead-clients";

describe("releaseDeadClients (PostgreSQL pool)", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("wraps a reused client's query once, however often it is checked out", async () => {
    const { url, drop } = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    // pool.end() resolves before its last socket has closed, so drop()'s DROP DATABASE ... WITH (FORCE) can still
    // terminate that backend: the pool re-emits it as 'error', an uncaught exception without a listener (CI, stop 17).
    pool.on("error", () => undefined);
    cleanups.push(drop, () => pool.end());
    releaseDeadClients(pool);
    const first = await pool.connect();
    const wrappedQuery = first.query;
    first.release();
    for (let i = 0; i < 50; i++) {
      const client = await pool.connect();
      expect(client).toBe(first); // max 1: the same client every time
      expect(client.query).toBe(wrappedQuery);
      await client.query("SELECT 1");
      client.release();
      client.release(); // a second release of one checkout is a no-op, not a pool error
    }
    expect(pool.totalCount).toBe(1);
    expect(pool.idleCount).toBe(1);
  });

  it("returns a client whose connection died to the pool as broken", async () => {
    const { url, drop } = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("error", () => undefined);
    cleanups.push(drop, () => pool.end());
    releaseDeadClients(pool);
    const client = await pool.connect();
    client.on("error", () => undefined);
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
    await admin.end();
    await expect(client.query("SELECT 1")).rejects.toThrow();
    // Never released by the caller (as drizzle does when BEGIN fails), yet the pool can hand out a new one.
    const next = await pool.connect();
    expect((await next.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    next.release();
  });
});
