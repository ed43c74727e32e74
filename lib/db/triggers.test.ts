import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { ALERT_TRIGGERS } from "@/lib/alerts/triggers";
import { AUDIT_TRIGGERS } from "@/lib/audit/triggers";
import { AUTH_TRIGGERS } from "@/lib/auth/triggers";
import { AUTHORIZATION_TRIGGERS } from "@/lib/authorizations/triggers";
import { LEDGER_TRIGGERS } from "@/lib/billing/triggers";
import { INVOICE_TRIGGERS } from "@/lib/invoices/triggers";
import { PAYMENT_TRIGGERS } from "@/lib/payments/triggers";
import { USAGE_TRIGGERS } from "@/lib/usage/triggers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { migrationsFolder, queryRows } from "./client";
import type { TriggerDeclaration } from "./triggers";

/** Every concept's declared triggers: a trigger of the database that none declares fails the test. */
const DECLARED: TriggerDeclaration[] = [
  ...AUTH_TRIGGERS,
  ...USAGE_TRIGGERS,
  ...AUTHORIZATION_TRIGGERS,
  ...ALERT_TRIGGERS,
  ...AUDIT_TRIGGERS,
  ...INVOICE_TRIGGERS,
  ...PAYMENT_TRIGGERS,
  ...LEDGER_TRIGGERS,
];

const migrations = fs
  .readdirSync(migrationsFolder())
  .filter((f) => f.endsWith(".sql"))
  .sort()
  .map((file) => ({ file, text: fs.readFileSync(path.join(migrationsFolder(), file), "utf8") }));

const escape = (name: string) => name.replace(/[^a-z0-9_]/gi, "");

/** The last migration whose text matches `pattern` (migrations apply in file-name order). */
function lastMigrationMatching(pattern: RegExp): { file: string; text: string; index: number } | undefined {
  for (const m of [...migrations].reverse()) {
    const all = [...m.text.matchAll(new RegExp(pattern.source, "gi"))];
    if (all.length > 0) return { ...m, index: all.at(-1)!.index };
  }
  return undefined;
}

/** The body (between the dollar quotes) of the last CREATE FUNCTION `name`, and the migration that writes it. */
function functionBody(name: string): { file: string; body: string } | undefined {
  const found = lastMigrationMatching(new RegExp(`CREATE (OR REPLACE )?FUNCTION ${escape(name)}\\(`));
  if (!found) return undefined;
  const open = found.text.indexOf("$$", found.index);
  const close = found.text.indexOf("$$", open + 2);
  return { file: found.file, body: found.text.slice(open + 2, close) };
}

describeOnEngines("triggers, each declared in its concept folder (lib/<concept>/triggers.ts)", (handle) => {
  it("are exactly the triggers of the migrated database, with the declared definitions", async () => {
    const rows = await queryRows<{ name: string; table: string; definition: string }>(
      handle().db,
      sql`SELECT t.tgname AS name, c.relname AS table, pg_get_triggerdef(t.oid) AS definition
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND n.nspname = 'public'
          ORDER BY t.tgname`,
    );
    const declared = DECLARED.map(({ name, table, definition }) => ({ name, table, definition }));
    expect(rows).toEqual(declared.sort((a, b) => (a.name < b.name ? -1 : 1)));
  });

  it("name the migrations that define them, and run the function bodies those migrations write", async () => {
    const bodies = await queryRows<{ name: string; body: string }>(
      handle().db,
      sql`SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public'`,
    );
    const inDatabase = new Map(bodies.map((r) => [r.name, r.body]));
    for (const trigger of DECLARED) {
      const created = lastMigrationMatching(new RegExp(`CREATE (OR REPLACE )?TRIGGER ${escape(trigger.name)}\\s`));
      expect(created?.file, trigger.name).toBe(trigger.migration);
      for (const fn of trigger.functions) {
        const written = functionBody(fn.name);
        expect(written?.file, fn.name).toBe(fn.migration);
        expect(inDatabase.get(fn.name), fn.name).toBe(written?.body);
      }
    }
  });
});
