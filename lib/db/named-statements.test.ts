import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDb } from "@/lib/testing/engines";
import { listCallsJson } from "@/lib/calls/list-calls";
import { testPrincipal } from "@/lib/testing/test-principal";
import { planOnce, queryRows, type DbHandle } from "./client";

// One connection per pool (PG_POOL_MAX=1), so every statement of the test meets the ones prepared before it.
describe("queryRows on PostgreSQL: named prepared statements on planOnce's connections only", () => {
  let handle: DbHandle;
  const saved = process.env.PG_POOL_MAX;
  beforeAll(async () => {
    process.env.PG_POOL_MAX = "1";
    handle = await openTestDb("postgres");
  });
  afterAll(async () => {
    await handle.close();
    if (saved === undefined) delete process.env.PG_POOL_MAX;
    else process.env.PG_POOL_MAX = saved;
  });

  /** Named statements of `db`'s one connection (pg_prepared_statements is per connection). */
  const prepared = (db: typeof handle.db, marker: string) =>
    queryRows<{ name: string; calls: number }>(
      db,
      sql`SELECT name, (generic_plans + custom_plans)::int AS calls FROM pg_prepared_statements WHERE statement LIKE ${`%${marker}%`} AND statement NOT LIKE '%pg_prepared_statements%'`,
    );

  it("on planOnce's connections a text is prepared once and run again by name, with the values of each call", async () => {
    const db = planOnce(handle.db);
    const a = await queryRows<{ v: string }>(db, sql`SELECT ${"a"}::text || '-named-1' AS v`);
    const b = await queryRows<{ v: string }>(db, sql`SELECT ${"b"}::text || '-named-1' AS v`);
    expect([a, b]).toEqual([[{ v: "a-named-1" }], [{ v: "b-named-1" }]]);
    const statements = await prepared(db, "-named-1");
    expect(statements).toHaveLength(1);
    expect(statements[0].name).toMatch(/^cb_[0-9a-f]{40}$/);
    expect(statements[0].calls).toBe(2);
  });

  it("in planOnce's transactions too, and timestamps still arrive as Drizzle's execute gives them (text)", async () => {
    const rows = await planOnce(handle.db).transaction((tx) =>
      queryRows<{ t: unknown }>(tx, sql`SELECT ${"2026-01-02T03:04:05.678Z"}::timestamptz AS t, '-named-2' AS m`),
    );
    expect(typeof rows[0].t).toBe("string");
    expect(new Date(rows[0].t as string).toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(await prepared(planOnce(handle.db), "-named-2")).toHaveLength(1);
  });

  it("on the database itself (and in its transactions) raw queries are sent unnamed, planned for their values", async () => {
    await queryRows(handle.db, sql`SELECT 1 AS x, '-named-3' AS m`);
    await handle.db.transaction((tx) => queryRows(tx, sql`SELECT 1 AS x, '-named-3' AS m`));
    expect(await prepared(handle.db, "-named-3")).toEqual([]);
  });

  it("planOnce(db) runs on connections that reuse one plan per statement; db itself keeps planning each call", async () => {
    const mode = async (db: typeof handle.db) =>
      (await queryRows<{ m: string }>(db, sql`SELECT current_setting('plan_cache_mode') AS m`))[0].m;
    expect(await mode(handle.db)).toBe("auto");
    expect(await mode(planOnce(handle.db))).toBe("force_generic_plan");
    const group = sql`SELECT count(*)::int AS n FROM billing_groups WHERE id = ${"bg_nobody"} AND '-named-4' <> ''`;
    for (let i = 0; i < 3; i++) await queryRows(planOnce(handle.db), group);
    const [plans] = await queryRows<{ generic: number; custom: number }>(
      planOnce(handle.db),
      sql`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%-named-4%' AND statement NOT LIKE '%pg_prepared_statements%'`,
    );
    expect(plans).toEqual({ generic: 3, custom: 0 });
  });

  it("the listing is never a prepared statement: planned for its values at every call, on either pool", async () => {
    const platform = testPrincipal(null);
    const listingStatements = (db: typeof handle.db) =>
      queryRows(
        db,
        sql`SELECT name FROM pg_prepared_statements WHERE statement LIKE '%row_to_json%' AND statement NOT LIKE '%pg_prepared_statements%'`,
      );
    for (let i = 0; i < 3; i++) {
      await listCallsJson(handle.db, platform, { direction: "inbound" }, { pageSize: 7 });
      await listCallsJson(handle.db, platform, { to: "4420" }, { pageSize: 7 });
    }
    expect(await listingStatements(handle.db)).toEqual([]);
    expect(await listingStatements(planOnce(handle.db))).toEqual([]);
  });

  it("PG_PREPARED_STATEMENTS=off: planOnce is the database itself, so nothing is named (a pooler that does not track them)", async () => {
    process.env.PG_PREPARED_STATEMENTS = "off";
    try {
      expect(planOnce(handle.db)).toBe(handle.db);
      await queryRows(planOnce(handle.db), sql`SELECT 1 AS x, '-named-5' AS m`);
    } finally {
      delete process.env.PG_PREPARED_STATEMENTS;
    }
    expect(planOnce(handle.db)).not.toBe(handle.db);
    expect(await prepared(handle.db, "-named-5")).toEqual([]);
    expect(await prepared(planOnce(handle.db), "-named-5")).toEqual([]);
  });
});

describe("planOnce on PGlite", () => {
  it("is the database itself (one statement at a time, nothing to route)", async () => {
    const pglite = await openTestDb("pglite");
    try {
      expect(planOnce(pglite.db)).toBe(pglite.db);
    } finally {
      await pglite.close();
    }
  });
});
