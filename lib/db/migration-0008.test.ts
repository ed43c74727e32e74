import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { describe, expect, it } from "vitest";
import { migrationsFolder } from "@/lib/db/client";
import { createTestDatabase, ENGINES, type Engine } from "@/lib/testing/engines";

// Migration 0008 (calls partitioned by month) on a populated 0007 database: every call (every column), ledger entry,
// rollup row and authorization comes through unchanged, call_uuids names every call, ids continue where they stopped,
// and the triggers (rollups, authorization settlement) work on the partitioned table.

interface Conn {
  exec(text: string): Promise<void>;
  rows<T>(text: string): Promise<T[]>;
  close(): Promise<void>;
}

async function connect(engine: Engine): Promise<Conn> {
  if (engine === "pglite") {
    const db = await PGlite.create("memory://", { extensions: { pg_trgm } });
    return {
      exec: async (text) => void (await db.exec(text)),
      rows: async <T>(text: string) => (await db.query<T>(text)).rows,
      close: () => db.close(),
    };
  }
  const pg = (await import("pg")).default;
  const { url, drop } = await createTestDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    exec: async (text) => void (await client.query(text)),
    rows: async <T>(text: string) => (await client.query(text)).rows as T[],
    close: async () => {
      await client.end();
      await drop();
    },
  };
}

async function apply(conn: Conn, tag: string) {
  const text = fs.readFileSync(path.join(migrationsFolder(), `${tag}.sql`), "utf8");
  for (const statement of text.split("--> statement-breakpoint")) if (statement.trim()) await conn.exec(statement);
}

const TAGS: string[] = JSON.parse(
  fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8"),
).entries.map((e: { tag: string }) => e.tag);

const CALL = `INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, answer_time, end_time, duration,
  bill_duration, hangup_cause, currency, rated, matched_prefix, sell_rate_micros, increment_min, increment_interval, price_micros,
  supplier_id, buy_cost_micros, rate_deck_id, connect_fee_micros)`;

/** Everything 0008 must keep, as comparable JSON text. */
async function contents(conn: Conn) {
  const [row] = await conn.rows<Record<string, string>>(`SELECT
    (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.id), '[]') FROM calls c)::text AS calls,
    (SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.id), '[]') FROM ledger_entries l)::text AS ledger,
    (SELECT coalesce(jsonb_agg(to_jsonb(u) ORDER BY u.billing_group_id, u.hour, u.direction, u.hangup_cause), '[]') FROM usage_hourly u)::text AS hourly,
    (SELECT coalesce(jsonb_agg(to_jsonb(u) ORDER BY u.billing_group_id, u.quarter, u.direction, u.hangup_cause), '[]') FROM usage_quarter u)::text AS quarter,
    (SELECT coalesce(jsonb_agg(to_jsonb(u) ORDER BY u.billing_group_id, u.day, u.direction, u.matched_prefix), '[]') FROM usage_daily u)::text AS daily,
    (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.uuid), '[]') FROM authorizations a)::text AS authorizations,
    (SELECT coalesce(jsonb_agg(to_jsonb(b) ORDER BY b.id), '[]') FROM billing_groups b)::text AS groups`);
  return row;
}

describe.each(ENGINES)("migration 0008_partition_calls on %s", (engine) => {
  it("keeps every call, ledger entry, rollup and authorization of a populated 0007 database; ids continue; triggers work", async () => {
    const conn = await connect(engine);
    try {
      for (const tag of TAGS.slice(0, TAGS.indexOf("0008_partition_calls"))) await apply(conn, tag);
      await conn.exec(`INSERT INTO billing_groups (id, name, currency, balance_micros) VALUES ('g1', 'G1', 'USD', 1000000), ('g2', 'G2', 'EUR', 0);
        INSERT INTO suppliers (id, name) VALUES ('s1', 'S1');
        INSERT INTO authorizations (billing_group_id, uuid, destination, matched_prefix, sell_rate_micros, increment_min, increment_interval,
          max_duration_seconds, reserved_micros, expires_at)
          VALUES ('g1', 'u-auth', '4420', '44', 1000, 1, 1, 60, 1000, now() + interval '1 hour'),
                 ('g1', 'u-open', '4420', '44', 1000, 1, 1, 60, 1000, now() + interval '1 hour');`);
      // Calls over several months and years (also one uuid in two groups), with triggers filling the rollups.
      await conn.exec(`${CALL} VALUES
        ('u1', 'g1', 'outbound', '4930', '4420', '2019-03-31T23:59:59.999Z', '2019-03-31T23:59:59.999Z', '2019-04-01T00:01:00Z', 61, 61, 'NORMAL_CLEARING', 'USD', true, '44', 1000, 1, 1, 1017, 's1', 500, 1, 10),
        ('u2', 'g1', 'inbound', '4930', '4420', '2019-04-01T00:00:00Z', NULL, '2019-04-01T00:00:10Z', 10, 0, 'NO_ANSWER', 'USD', true, '44', 1000, 1, 1, 0, NULL, NULL, NULL, NULL),
        ('u1', 'g2', 'outbound', '4930', '4420', '2024-02-29T12:00:00Z', '2024-02-29T12:00:01Z', '2024-02-29T12:01:01Z', 61, 60, NULL, 'EUR', false, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL);
        ${CALL} VALUES ('u-auth', 'g1', 'outbound', '4930', '4420', now() - interval '2 minutes', now() - interval '2 minutes', now() - interval '1 minute', 60, 60, 'NORMAL_CLEARING', 'USD', true, '44', 1000, 1, 1, 1000, NULL, NULL, 1, NULL);
        DELETE FROM calls WHERE uuid = 'u2';
        ${CALL} VALUES ('u3', 'g1', 'inbound', '4930', '4420', '2019-04-01T00:00:00Z', NULL, '2019-04-01T00:00:10Z', 10, 0, 'NO_ANSWER', 'USD', true, '44', 1000, 1, 1, 0, NULL, NULL, NULL, NULL);
        UPDATE calls SET price_micros = 2000 WHERE uuid = 'u-auth';
        INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id, description) VALUES
          ('g1', 'opening', 1000000, NULL, 'opening'), ('g1', 'debit', -1017, 1, 'Call to 4420'), ('g1', 'debit', -1000, 4, 'Call to 4420'),
          ('g1', 'adjustment', -1000, 4, 're-rated');`);
      const before = await contents(conn);
      expect(JSON.parse(before.calls)).toHaveLength(4);
      expect(JSON.parse(before.authorizations)[0]).toMatchObject({ uuid: "u-auth", call_id: 4 });
      const [{ last }] = await conn.rows<{ last: string }>(`SELECT max(id)::text AS last FROM calls`);
      expect(last).toBe("5"); // u2 (id 2) was deleted: ids are not reused

      await apply(conn, "0008_partition_calls");

      expect(await contents(conn)).toEqual(before);
      expect(
        await conn.rows(`SELECT k.billing_group_id, k.uuid, call_id::text AS id, (c.start_time = k.start_time AND c.billing_group_id = k.billing_group_id AND c.uuid = k.uuid) AS same_start
          FROM call_uuids k JOIN calls c ON c.id = k.call_id ORDER BY call_id`),
      ).toEqual([
        { billing_group_id: "g1", uuid: "u1", id: "1", same_start: true },
        { billing_group_id: "g2", uuid: "u1", id: "3", same_start: true },
        { billing_group_id: "g1", uuid: "u-auth", id: "4", same_start: true },
        { billing_group_id: "g1", uuid: "u3", id: "5", same_start: true },
      ]);
      // Each call sits in its UTC month's partition (2019-03-31 23:59:59.999 is still March).
      const parts = await conn.rows<{ uuid: string; part: string }>(
        `SELECT uuid, tableoid::regclass::text AS part FROM calls WHERE start_time < '2025-01-01' ORDER BY id`,
      );
      expect(parts).toEqual([
        { uuid: "u1", part: "calls_p201903" },
        { uuid: "u1", part: "calls_p202402" },
        { uuid: "u3", part: "calls_p201904" },
      ]);
      expect(await conn.rows(`SELECT count(*)::int AS n FROM calls_default`)).toEqual([{ n: 0 }]);

      // New calls: the id continues past the old identity; the rollup and settlement triggers fire on the parent.
      const [{ id }] = await conn.rows<{
        id: string;
      }>(`${CALL} VALUES ('u-open', 'g1', 'outbound', '4930', '4420', '2019-04-02T00:00:00Z',
          '2019-04-02T00:00:00Z', '2019-04-02T00:01:00Z', 60, 60, 'NORMAL_CLEARING', 'USD', true, '44', 1000, 1, 1, 1000, NULL, NULL, 1, NULL) RETURNING id::text AS id`);
      expect(id).toBe("6");
      expect(await conn.rows(`SELECT call_id::text AS id FROM authorizations WHERE uuid = 'u-open'`)).toEqual([
        { id: "6" },
      ]);
      expect(
        await conn.rows(
          `SELECT calls::int AS n, price_micros::int AS p FROM usage_hourly WHERE billing_group_id = 'g1' AND hour = '2019-04-02T00:00:00Z'`,
        ),
      ).toEqual([{ n: 1, p: 1000 }]);
      await conn.exec(`UPDATE calls SET price_micros = 1500 WHERE id = 6`);
      await conn.exec(`DELETE FROM calls WHERE id = 5`);
      expect(
        await conn.rows(
          `SELECT hour, calls::int AS n, price_micros::int AS p FROM usage_hourly WHERE billing_group_id = 'g1' AND hour >= '2019-04-01' AND hour < '2019-05-01' ORDER BY hour`,
        ),
      ).toEqual([expect.objectContaining({ n: 0, p: 0 }), expect.objectContaining({ n: 1, p: 1500 })]);
      // (group, uuid) stays unique in call_uuids; the ledger's keys now lead with the group and still refuse a second debit.
      await expect(conn.exec(`INSERT INTO call_uuids VALUES ('g1', 'u1', '2030-01-01', 99)`)).rejects.toThrow(
        /call_uuids_pkey/,
      );
      await expect(
        conn.exec(
          `INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id) VALUES ('g1', 'debit', -5, 1)`,
        ),
      ).rejects.toThrow(/ledger_call_debit_key/);
    } finally {
      await conn.close();
    }
  });
});
