import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { describe, expect, it } from "vitest";
import { migrationsFolder } from "@/lib/db/client";
import { createTestDatabase, ENGINES, type Engine } from "@/lib/testing/engines";

// Migration 0006 (dated rate decks) on a database holding cards of the old shape: each owner's card
// becomes its deck #1 from the epoch, rows keep their values, and the ledger takes adjustments per call.

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

describe.each(ENGINES)("migration 0006_rate_decks on %s", (engine) => {
  it("turns each existing card into deck #1 effective from the epoch, keeping every rate", async () => {
    const conn = await connect(engine);
    try {
      for (const tag of TAGS.slice(0, TAGS.indexOf("0006_rate_decks"))) await apply(conn, tag);
      await conn.exec(`INSERT INTO billing_groups (id, name, currency) VALUES ('g1', 'G1', 'USD'), ('g2', 'G2', 'EUR'), ('g3', 'Empty', 'USD');
        INSERT INTO suppliers (id, name) VALUES ('s1', 'S1');
        INSERT INTO sell_rates VALUES ('g1', '44', 10000, 1, 1, 'UK'), ('g1', '4420', 20000, 60, 60, NULL), ('g2', '1', 5000, 30, 6, NULL);
        INSERT INTO buy_rates VALUES ('s1', '44', 8000, 1, 1, NULL);
        INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id) VALUES ('g1', 'debit', -5, 7);`);
      await apply(conn, "0006_rate_decks");
      const decks = await conn.rows<{ owner: string; from: string }>(
        `SELECT coalesce(billing_group_id, supplier_id) AS owner, to_char(effective_from AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS "from" FROM rate_decks ORDER BY 1`,
      );
      expect(decks).toEqual([
        { owner: "g1", from: "1970-01-01 00:00:00" },
        { owner: "g2", from: "1970-01-01 00:00:00" },
        { owner: "s1", from: "1970-01-01 00:00:00" },
      ]);
      const sell = await conn.rows<Record<string, unknown>>(
        `SELECT r.billing_group_id AS g, r.prefix, r.rate_micros::text AS rate, r.increment_min AS min, r.increment_interval AS iv, r.description AS d,
                r.connect_fee_micros AS fee, (d.billing_group_id = r.billing_group_id) AS own
           FROM sell_rates r JOIN rate_decks d ON d.id = r.deck_id ORDER BY 1, 2`,
      );
      expect(sell).toEqual([
        { g: "g1", prefix: "44", rate: "10000", min: 1, iv: 1, d: "UK", fee: null, own: true },
        { g: "g1", prefix: "4420", rate: "20000", min: 60, iv: 60, d: null, fee: null, own: true },
        { g: "g2", prefix: "1", rate: "5000", min: 30, iv: 6, d: null, fee: null, own: true },
      ]);
      expect(await conn.rows(`SELECT supplier_id, prefix FROM buy_rates WHERE deck_id IS NOT NULL`)).toEqual([
        { supplier_id: "s1", prefix: "44" },
      ]);
      // One debit per call still; an adjustment for the same call is allowed.
      await conn.exec(
        `INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id) VALUES ('g1', 'adjustment', 2, 7)`,
      );
      await expect(
        conn.exec(
          `INSERT INTO ledger_entries (billing_group_id, kind, amount_micros, call_id) VALUES ('g1', 'debit', -5, 7)`,
        ),
      ).rejects.toThrow(/ledger_call_debit_key/);
    } finally {
      await conn.close();
    }
  });
});
