import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing, type BillingGroup } from "@/lib/billing/groups";
import { ArchiveRefusedError, archiveCalls } from "@/lib/calls/archive-calls";
import { callReads } from "@/lib/calls/call-store";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { DECLARED_TRIGGERS, triggersOn } from "@/lib/testing/declared-triggers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { migrationsFolder, queryRows } from "./client";

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
    const declared = DECLARED_TRIGGERS.map(({ name, table, definition }) => ({ name, table, definition }));
    expect(rows).toEqual(declared.sort((a, b) => (a.name < b.name ? -1 : 1)));
  });

  it("name the migrations that define them, and run the function bodies those migrations write", async () => {
    const bodies = await queryRows<{ name: string; body: string }>(
      handle().db,
      sql`SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public'`,
    );
    const inDatabase = new Map(bodies.map((r) => [r.name, r.body]));
    for (const trigger of DECLARED_TRIGGERS) {
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

// Archiving (docs/contract.md "Archiving calls"): the DELETE of archiveCalls fires neither the rollup nor the
// invoice-mark triggers (they return at once with callbook.archiving on, migration 0023); any other DELETE still takes
// its calls back (rollups shrink, the closed period is rechecked).
describeOnEngines("archiving calls", (handle) => {
  const db = () => handle().db;
  // America/New_York: November 2030 ends at 05:00Z on 1 December, so that UTC day is cut (read from calls by a note).
  const NOV_START = Date.parse("2030-11-01T04:00:00Z");
  const NOV_END = Date.parse("2030-12-01T05:00:00Z");
  const NOW = Date.parse("2030-12-01T07:00:00Z");
  let group: BillingGroup;
  let resellerId: string;
  let serial = 0;
  const call = (startMs: number, minutes: number) =>
    answeredCdr({
      uuid: `archive-${serial++}`,
      billingGroupId: group.id,
      startMs,
      seconds: minutes * 60,
      to: "12125550100",
    });
  const rollups = () =>
    queryRows<{ t: string; row: string }>(
      db(),
      sql`SELECT 'hourly' AS t, row_to_json(u)::text AS row FROM usage_hourly u WHERE billing_group_id = ${group.id}
          UNION ALL SELECT 'quarter', row_to_json(u)::text FROM usage_quarter u WHERE billing_group_id = ${group.id}
          UNION ALL SELECT 'daily', row_to_json(u)::text FROM usage_daily u WHERE billing_group_id = ${group.id}
          ORDER BY 1, 2`,
    );
  const marks = async () =>
    (
      await queryRows<{ day: string }>(
        db(),
        sql`SELECT to_char(day AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM invoice_recheck_marks
            WHERE billing_group_id = ${group.id} ORDER BY id`,
      )
    ).map((m) => m.day);
  const hotCalls = async () =>
    (
      await queryRows<{ uuid: string }>(
        db(),
        sql`SELECT uuid FROM calls WHERE billing_group_id = ${group.id} ORDER BY start_time`,
      )
    ).map((c) => c.uuid);
  /** The uuids of the calls whose tier charge is stored. */
  const tierCharged = async () =>
    (
      await queryRows<{ uuid: string }>(
        db(),
        sql`SELECT k.uuid FROM call_tier_charges t
            JOIN call_uuids k ON k.billing_group_id = t.billing_group_id AND k.call_id = t.call_id
            WHERE t.billing_group_id = ${group.id} ORDER BY t.start_time`,
      )
    ).map((c) => c.uuid);
  const november = () => callReads(db()).periodUsage(group.id, new Date(NOV_START), new Date(NOV_END));

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    // A reseller's customer: its calls carry a tier charge (docs/contract.md "Reseller tiers"), archived with them.
    const reseller = await createBillingGroup(db(), { name: "Archive reseller", currency: "USD" });
    resellerId = reseller.id;
    // Invoiced for the same months as its customer (its tier charges are billed on its own invoice).
    await setBillingGroupInvoicing(db(), reseller.id, { timeZone: "America/New_York" });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2030-10-15T12:00:00Z' WHERE id = ${reseller.id}`);
    await importSellRates(db(), reseller.id, parseRateCsv("prefix,rate,increment\n1,0.5,60/60\n"), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    group = await createBillingGroup(db(), { name: "Archive", currency: "USD", parentId: reseller.id });
    await setBillingGroupInvoicing(db(), group.id, { timeZone: "America/New_York" });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2030-10-15T12:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(
      db(),
      group.id,
      parseRateCsv("prefix,rate,increment,description\n1,1,60/60,USA\n"),
      undefined,
      {
        effectiveFrom: new Date("2025-01-01T00:00:00Z"),
      },
    );
    await ingestCdrs(db(), [
      call(Date.parse("2030-11-10T12:00:00Z"), 3), // archive-0: a whole UTC day of November
      call(Date.parse("2030-11-12T12:00:00Z"), 4), // archive-1: another
      call(Date.parse("2030-12-01T02:00:00Z"), 5), // archive-2: November's, on the UTC day its end cuts
      call(Date.parse("2030-12-01T06:00:00Z"), 6), // archive-3: December's, not invoiced yet
    ]);
    await runInvoices(db(), { now: new Date(NOW), issuer: { name: "Operator", address: "" } });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it("refuses calls of a period not yet invoiced, and removes nothing", async () => {
    const error = await archiveCalls(db(), { before: new Date(NOW) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveRefusedError);
    // The customer's December, and its reseller's December (the December call's tier charge) with it.
    expect((error as ArchiveRefusedError).groupIds).toEqual([group.id, resellerId].sort());
    expect(await hotCalls()).toEqual(["archive-0", "archive-1", "archive-2", "archive-3"]);
  });

  it("removes invoiced calls from the hot table with the rollups, invoice marks and period usage unchanged", async () => {
    const [rollupsBefore, usageBefore] = [await rollups(), await november()];
    expect(usageBefore.map((l) => l.calls)).toEqual([3]);
    expect(await marks()).toEqual([]);
    // Up to November's end: the call on the cut UTC day stays (a note's recheck reads that day from calls).
    expect(await tierCharged()).toEqual(["archive-0", "archive-1", "archive-2", "archive-3"]);
    expect(await archiveCalls(db(), { before: new Date(NOV_END), billingGroupId: group.id })).toBe(2);
    expect(await hotCalls()).toEqual(["archive-2", "archive-3"]);
    expect(await tierCharged()).toEqual(["archive-2", "archive-3"]);
    expect(await rollups()).toEqual(rollupsBefore);
    expect(await marks()).toEqual([]);
    expect(await november()).toEqual(usageBefore);
    const run = await runInvoices(db(), { now: new Date(NOW), issuer: { name: "Operator", address: "" } });
    expect(run).toMatchObject({ invoices: 0, notes: 0 });
    // The setting lasted the archive's transaction only.
    const [{ setting }] = await queryRows<{ setting: string | null }>(
      db(),
      sql`SELECT current_setting('callbook.archiving', true) AS setting`,
    );
    expect(setting === null || setting === "").toBe(true);
  });

  it("a late CDR of an archived period gets its note (exactly its own amount); a plain DELETE takes it back", async () => {
    await ingestCdrs(db(), [call(Date.parse("2030-11-20T12:00:00Z"), 7)]); // archive-4
    expect(await marks()).toEqual(["2030-11-20"]);
    const run = await runInvoices(db(), { now: new Date(NOW), issuer: { name: "Operator", address: "" } });
    expect(run).toMatchObject({ invoices: 0, notes: 1 });
    const notes = await queryRows<{ kind: string; subtotal: string }>(
      db(),
      sql`SELECT kind, subtotal_micros::text AS subtotal FROM invoices WHERE billing_group_id = ${group.id} AND kind <> 'invoice'`,
    );
    // Seven minutes at 1 USD: the archived calls are neither credited nor billed again.
    expect(notes).toEqual([{ kind: "debit_note", subtotal: "7000000" }]);
    const daily = () =>
      queryRows<{ calls: string }>(
        db(),
        sql`SELECT sum(calls)::text AS calls FROM usage_daily WHERE billing_group_id = ${group.id}
            AND day = '2030-11-20T00:00:00Z'::timestamptz`,
      );
    expect(await daily()).toEqual([{ calls: "1" }]);
    const marked = (await marks()).length;
    await db().execute(sql`DELETE FROM calls WHERE billing_group_id = ${group.id} AND uuid = 'archive-4'`);
    expect(await daily()).toEqual([{ calls: "0" }]);
    expect((await marks()).slice(marked)).toEqual(["2030-11-20"]);
  });
});

// What ingest's insert and debit (lib/ingest/ingest-cdrs.ts) and every balance movement (lib/billing/ledger.ts) set
// off: the code's comments name triggersOn, so a trigger added to these tables is decided on here.
describe("triggersOn", () => {
  const names = (table: string) => triggersOn(table).map((t) => t.name);

  it("lists what fires on calls: usage rollups, invoice marks, authorization settlement", () => {
    expect(names("calls")).toEqual([
      "calls_invoice_marks_delete",
      "calls_invoice_marks_insert",
      "calls_invoice_marks_update",
      "calls_settle_authorizations",
      "calls_tier_usage_update",
      "calls_usage_rollups_delete",
      "calls_usage_rollups_insert",
      "calls_usage_rollups_truncate",
      "calls_usage_rollups_update",
    ]);
    expect(names("call_uuids")).toEqual([]);
  });

  it("lists what fires on the ledger and the balances: TRUNCATE refused; alerts, auto-recharge, principal cache", () => {
    expect(names("ledger_entries")).toEqual(["ledger_entries_refuse_truncate"]);
    expect(names("billing_groups")).toEqual([
      "billing_groups_auto_recharge",
      "billing_groups_balance_alerts",
      "billing_groups_notify_auth",
      "billing_groups_notify_auth_child",
    ]);
  });
});
