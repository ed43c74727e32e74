import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing, type BillingGroup } from "@/lib/billing/groups";
import { topUp } from "@/lib/billing/testing/top-up";
import { queryRows, type Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls } from "@/lib/rating/rerate";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { runInvoices } from "./run-invoices";
import { taxMicros } from "./tax";

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road\nLondon" };
const TAX_PPM = 200_000;

interface Doc {
  id: string;
  kind: string;
  number: string;
  invoice_id: string | null;
  period_start: Date;
  period_end: Date;
  subtotal: string;
  tax: string;
  total: string;
  opening: string | null;
  closing: string | null;
  remainder: string;
}

async function documents(db: Db, groupId: string): Promise<Doc[]> {
  const rows = await queryRows<Doc>(
    db,
    sql`SELECT id, kind, number, invoice_id, period_start, period_end, subtotal_micros::text AS subtotal,
               tax_micros::text AS tax, total_micros::text AS total, opening_balance_micros::text AS opening,
               closing_balance_micros::text AS closing, remainder_micros::text AS remainder
        FROM invoices WHERE billing_group_id = ${groupId} ORDER BY kind <> 'invoice', period_start, issued_at, number`,
  );
  return rows.map((r) => ({ ...r, period_start: new Date(r.period_start), period_end: new Date(r.period_end) }));
}

/** The sum of the prices of the group's calls that started in [start, end), straight from calls. */
async function callsSum(db: Db, groupId: string, start: Date, end: Date): Promise<bigint> {
  const [row] = await queryRows<{ s: string }>(
    db,
    sql`SELECT coalesce(sum(price_micros), 0)::text AS s FROM calls WHERE billing_group_id = ${groupId}
        AND start_time >= ${start.toISOString()}::timestamptz AND start_time < ${end.toISOString()}::timestamptz`,
  );
  return BigInt(row.s);
}

/** The ledger balance at an instant. */
async function balanceAt(db: Db, groupId: string, at: Date): Promise<bigint> {
  const [row] = await queryRows<{ s: string }>(
    db,
    sql`SELECT coalesce(sum(amount_micros), 0)::text AS s FROM ledger_entries WHERE billing_group_id = ${groupId}
        AND created_at < ${at.toISOString()}::timestamptz`,
  );
  return BigInt(row.s);
}

function cdr(
  group: BillingGroup,
  i: number,
  start: string,
  seconds: number,
  to: string,
  direction: "inbound" | "outbound" = "outbound",
) {
  const uuid = `inv-${group.id}-${i}`;
  return answeredCdr({ uuid, billingGroupId: group.id, startMs: Date.parse(start), seconds, to, direction });
}

describeOnEngines("the invoice run", (handle) => {
  const db = () => handle().db;

  /**
   * Every amount is in cents; every invoice and its notes bill the period's calls (+ the tax of what they bill) but
   * for the sub-cent remainders carried from document to document, so all documents + the last one's remainder equal
   * all the invoiced periods' calls to the micro; the balance chains.
   */
  async function expectInvariant(group: BillingGroup, docs: Doc[]) {
    let calls = 0n;
    for (const invoice of docs.filter((d) => d.kind === "invoice")) {
      const notes = docs.filter((d) => d.invoice_id === invoice.id);
      const subtotal = [invoice, ...notes].reduce((s, d) => s + BigInt(d.subtotal), 0n);
      const tax = [invoice, ...notes].reduce((s, d) => s + BigInt(d.tax), 0n);
      const period = await callsSum(db(), group.id, invoice.period_start, invoice.period_end);
      calls += period;
      expect(subtotal - period, `${invoice.number} + notes: the period's calls, but for remainders`).toBeLessThan(
        10_000n * BigInt(notes.length + 1),
      );
      expect(tax).toBe(taxMicros(subtotal, TAX_PPM, "EUR"));
      for (const d of [invoice, ...notes]) {
        expect(BigInt(d.total)).toBe(BigInt(d.subtotal) + BigInt(d.tax));
        for (const amount of [d.subtotal, d.tax, d.total]) expect(BigInt(amount) % 10_000n).toBe(0n);
      }
      expect(BigInt(invoice.opening!)).toBe(await balanceAt(db(), group.id, invoice.period_start));
    }
    const billed = docs.reduce((s, d) => s + BigInt(d.subtotal), 0n);
    const [{ remainder }] = await queryRows<{ remainder: string }>(
      db(),
      sql`SELECT remainder_micros::text AS remainder FROM invoices WHERE billing_group_id = ${group.id}
          ORDER BY issued_at DESC, seq DESC LIMIT 1`,
    );
    expect(billed + BigInt(remainder), "all documents + the remainder carried: the calls").toBe(calls);
  }

  it("issues one invoice per closed month of the group's zone, equal to its calls, then only notes for late and re-rated calls", async () => {
    const group = await createBillingGroup(db(), { name: "Acme", currency: "EUR", openingBalanceMicros: 500_000_000n });
    await setBillingGroupInvoicing(db(), group.id, {
      timeZone: "america/new_york",
      taxRatePpm: TAX_PPM,
      billingMode: "postpaid",
    });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(
      db(),
      group.id,
      parseRateCsv(
        "prefix,rate,increment,description\n49,0.0123,1/1,Germany\n4930,0.0071,6/6,Berlin\n1,0.004,60/60,USA\n",
      ),
      undefined,
      { effectiveFrom: new Date("2025-01-01T00:00:00Z") },
    );
    await topUp(db(), group.id, 25_000_000n);
    // Calls every 7h13m from 2025-10-03 to mid-January 2026, including the hours around each New York midnight
    // that ends a month (UTC days cut by the month boundary), some inbound, some to an unrated destination.
    const destinations = ["4930555", "4989111", "12125550100", "33123456"];
    const cdrs = Array.from({ length: 340 }, (_, i) =>
      cdr(
        group,
        i,
        new Date(Date.parse("2025-10-03T00:00:00Z") + i * 25_980_000).toISOString(),
        1 + ((i * 37) % 600),
        destinations[i % 4],
        i % 5 === 0 ? "inbound" : "outbound",
      ),
    );
    cdrs.push(cdr(group, 1000, "2025-11-01T03:59:59.999Z", 61, "4930555")); // 23:59:59.999 EDT: October
    cdrs.push(cdr(group, 1001, "2025-11-01T04:00:00.000Z", 61, "4930555")); // 00:00 EDT: November
    cdrs.push(cdr(group, 1002, "2025-12-01T04:59:59.000Z", 61, "4989111")); // 23:59:59 EST: November
    cdrs.push(cdr(group, 1003, "2025-12-01T05:00:00.000Z", 61, "4989111")); // December
    await ingestCdrs(db(), cdrs);

    const first = await runInvoices(db(), { now: new Date("2026-01-15T00:00:00Z"), issuer: ISSUER });
    expect(first).toMatchObject({ invoices: 3, notes: 0 });
    let docs = await documents(db(), group.id);
    expect(docs.map((d) => [d.kind, d.period_start.toISOString(), d.period_end.toISOString()])).toEqual([
      ["invoice", "2025-10-01T04:00:00.000Z", "2025-11-01T04:00:00.000Z"],
      ["invoice", "2025-11-01T04:00:00.000Z", "2025-12-01T05:00:00.000Z"],
      ["invoice", "2025-12-01T05:00:00.000Z", "2026-01-01T05:00:00.000Z"],
    ]);
    // Gapless numbers, in issue order.
    const numbers = docs.map((d) => Number(d.number.slice(4)));
    expect(numbers).toEqual([numbers[0], numbers[0] + 1, numbers[0] + 2]);
    expect(docs.every((d) => BigInt(d.subtotal) > 0n && BigInt(d.tax) > 0n)).toBe(true);
    await expectInvariant(group, docs);
    // The balance chains: each closing is the next opening.
    expect(docs[0].closing).toBe(docs[1].opening);
    expect(docs[1].closing).toBe(docs[2].opening);

    // Lines per direction and destination, with the rate card's words.
    const lines = await queryRows<{ direction: string; prefix: string | null; description: string; amount: string }>(
      db(),
      sql`SELECT direction, prefix, description, amount_micros::text AS amount FROM invoice_lines
          WHERE invoice_id = ${docs[1].id} AND kind = 'usage' ORDER BY line_no`,
    );
    expect(lines.map((l) => `${l.direction} ${l.prefix ?? "-"} ${l.description}`)).toEqual([
      "inbound 4930 Berlin",
      "inbound 49 Germany",
      "inbound 1 USA",
      "inbound - Unrated calls",
      "outbound 4930 Berlin",
      "outbound 49 Germany",
      "outbound 1 USA",
      "outbound - Unrated calls",
    ]);

    // Each issue is in the audit log, by the system.
    const audited = await queryRows<{ target_id: string; actor_type: string }>(
      db(),
      sql`SELECT target_id, actor_type FROM audit_events WHERE action = 'invoice.issued' AND billing_group_id = ${group.id}`,
    );
    expect(audited.map((a) => a.target_id).sort()).toEqual(docs.map((d) => d.id).sort());
    expect(audited.every((a) => a.actor_type === "system")).toBe(true);

    // Idempotent: nothing more to issue.
    expect(await runInvoices(db(), { now: new Date("2026-01-20T00:00:00Z"), issuer: ISSUER })).toMatchObject({
      invoices: 0,
      notes: 0,
    });

    // Issued documents never change.
    await expect(db().execute(sql`UPDATE invoices SET total_micros = 0 WHERE id = ${docs[0].id}`)).rejects.toThrow();
    await expect(db().execute(sql`DELETE FROM invoice_lines WHERE invoice_id = ${docs[0].id}`)).rejects.toThrow();
    await expect(db().execute(sql`DELETE FROM invoices WHERE id = ${docs[0].id}`)).rejects.toThrow();

    // A new deck from 2025-11-20 re-rates part of November and all of December (Berlin dearer, Germany cheaper), and
    // a late CDR of October arrives: the next run issues a note for each of the three invoices.
    await importSellRates(
      db(),
      group.id,
      parseRateCsv(
        "prefix,rate,increment,description\n49,0.0101,1/1,Germany\n4930,0.0093,6/6,Berlin\n1,0.004,60/60,USA\n",
      ),
      undefined,
      { effectiveFrom: new Date("2025-11-20T00:00:00Z") },
    );
    const rerated = await rerateCalls(db(), { since: new Date("2025-11-20T00:00:00Z"), billingGroupId: group.id });
    expect(rerated.rerated).toBeGreaterThan(0);
    await ingestCdrs(db(), [cdr(group, 2000, "2025-10-20T10:00:00Z", 300, "4989111")]);
    const second = await runInvoices(db(), { now: new Date("2026-01-21T00:00:00Z"), issuer: ISSUER });
    expect(second).toMatchObject({ invoices: 0, notes: 3 });
    docs = await documents(db(), group.id);
    const notes = docs.filter((d) => d.kind !== "invoice");
    // October's late call is a debit note; every invoice has one note.
    expect(notes.map((n) => n.invoice_id)).toEqual(docs.slice(0, 3).map((d) => d.id));
    expect(notes[0].kind).toBe("debit_note");
    expect(notes.every((n) => n.kind === (BigInt(n.total) < 0n ? "credit_note" : "debit_note"))).toBe(true);
    await expectInvariant(group, docs);
    const notesAudited = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'note.issued' AND billing_group_id = ${group.id}`,
    );
    expect(notesAudited[0].n).toBe(3);
    // Again: nothing.
    expect(await runInvoices(db(), { now: new Date("2026-01-21T00:00:00Z"), issuer: ISSUER })).toMatchObject({
      invoices: 0,
      notes: 0,
    });
  });

  it("waits for a period to close in the group's zone, and starts with the month the group was created", async () => {
    const group = await createBillingGroup(db(), { name: "Tokyo", currency: "JPY" });
    await setBillingGroupInvoicing(db(), group.id, { timeZone: "Asia/Tokyo" });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2025-12-31T16:00:00Z' WHERE id = ${group.id}`);
    // 2026-01-01 01:00 in Tokyo: January. Its month ends 2026-01-31T15:00Z.
    const ours = async () => (await documents(db(), group.id)).length;
    await runInvoices(db(), { now: new Date("2026-01-31T14:59:59.999Z"), issuer: ISSUER });
    expect(await ours()).toBe(0);
    await runInvoices(db(), { now: new Date("2026-01-31T15:00:00Z"), issuer: ISSUER });
    const [invoice] = await documents(db(), group.id);
    expect([invoice.period_start.toISOString(), invoice.period_end.toISOString(), invoice.total]).toEqual([
      "2025-12-31T15:00:00.000Z",
      "2026-01-31T15:00:00.000Z",
      "0",
    ]);
  });
});
