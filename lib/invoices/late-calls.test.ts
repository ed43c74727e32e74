import { sql } from "drizzle-orm";
import { afterEach, expect, it, vi } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing, type BillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { runInvoices } from "./run-invoices";

// A late call is in an invoice or a note whatever the group's zone (docs/contract.md §10): the re-check trigger marks
// by the group's own period, not by a UTC window. Issue 28 item 4: an Asia/Kolkata group invoiced at 18:40Z on 30
// November, then a CDR of 18:25-18:39Z (23:55-00:09 IST) arrived, was debited, and no run ever issued its note.

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road\nLondon" };
const MINUTE = 60_000;

/** Each zone's end of November 2030 (local 1 December 00:00), east and west of UTC, whole and 30/45-minute offsets. */
const ZONES = [
  { zone: "Asia/Kolkata", end: "2030-11-30T18:30:00Z" },
  { zone: "Asia/Kathmandu", end: "2030-11-30T18:15:00Z" },
  { zone: "Australia/Adelaide", end: "2030-11-30T13:30:00Z" },
  { zone: "Pacific/Kiritimati", end: "2030-11-30T10:00:00Z" },
  { zone: "UTC", end: "2030-12-01T00:00:00Z" },
  { zone: "America/St_Johns", end: "2030-12-01T03:30:00Z" },
  { zone: "America/New_York", end: "2030-12-01T05:00:00Z" },
  { zone: "Pacific/Pago_Pago", end: "2030-12-01T11:00:00Z" },
];

let serial = 0;
function cdr(group: BillingGroup, startMs: number, minutes: number) {
  const uuid = `late-${group.id}-${serial++}`;
  return answeredCdr({ uuid, billingGroupId: group.id, startMs, seconds: minutes * 60, to: "919876543210" });
}

async function sums(db: Db, groupId: string) {
  return queryRows<{ kind: string; period_end: Date | string; subtotal: string; calls: string }>(
    db,
    sql`SELECT i.kind, i.period_end, i.subtotal_micros::text AS subtotal,
               (SELECT coalesce(sum(c.price_micros), 0) FROM calls c WHERE c.billing_group_id = i.billing_group_id
                AND c.start_time >= i.period_start AND c.start_time < i.period_end)::text AS calls
        FROM invoices i WHERE i.billing_group_id = ${groupId} ORDER BY i.seq`,
  );
}

describeOnEngines("late calls at each zone's month boundary", (handle) => {
  const db = () => handle().db;
  // The clock of this process is moved (a CDR must not lie in the future); the database's stays where it is.
  const at = (ms: number) => vi.setSystemTime(new Date(ms));
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are in a note of the invoiced month (before the group's local midnight) or in the next invoice (after it)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(Date.parse("2030-11-25T00:00:00Z"));
    const groups: { group: BillingGroup; endMs: number }[] = [];
    for (const { zone, end } of ZONES) {
      const group = await createBillingGroup(db(), { name: `Late ${zone}`, currency: "INR" });
      await setBillingGroupInvoicing(db(), group.id, { timeZone: zone });
      await db().execute(sql`UPDATE billing_groups SET created_at = '2030-11-15T12:00:00Z' WHERE id = ${group.id}`);
      // Whole rupees a minute: every amount is in whole minor units, whatever the rounding of documents.
      await importSellRates(
        db(),
        group.id,
        parseRateCsv("prefix,rate,increment,description\n91,1,60/60,India\n"),
        undefined,
        {
          effectiveFrom: new Date("2025-01-01T00:00:00Z"),
        },
      );
      const endMs = Date.parse(end);
      await ingestCdrs(db(), [cdr(group, endMs - 10 * 86_400_000, 5)]);
      groups.push({ group, endMs });
    }
    // Each group's November, invoiced 10 minutes after its own close (the run is given that instant).
    for (const { group, endMs } of groups) {
      at(endMs + 10 * MINUTE);
      await runInvoices(db(), { now: new Date(endMs + 10 * MINUTE), issuer: ISSUER });
      const [invoice] = await sums(db(), group.id);
      expect(new Date(invoice.period_end).getTime(), group.name).toBe(endMs);
      expect(invoice.subtotal).toBe("5000000");
    }
    // Then the late CDRs: 23:55-00:09 local (started in November: a debit note), and 00:01 local (December's).
    for (const { group, endMs } of groups) {
      at(endMs + 15 * MINUTE);
      await ingestCdrs(db(), [cdr(group, endMs - 5 * MINUTE, 14), cdr(group, endMs + MINUTE, 2)]);
    }
    const last = Math.max(...groups.map((g) => g.endMs));
    at(last + 20 * MINUTE);
    const run = await runInvoices(db(), { now: new Date(last + 20 * MINUTE), issuer: ISSUER });
    expect(run).toMatchObject({ invoices: 0, notes: ZONES.length });
    // December: its invoice has the call after the boundary, and nothing of November.
    at(Date.parse("2031-01-02T00:00:00Z"));
    await runInvoices(db(), { now: new Date("2031-01-02T00:00:00Z"), issuer: ISSUER });
    for (const { group } of groups) {
      const docs = await sums(db(), group.id);
      expect(
        docs.map((d) => [d.kind, d.subtotal]),
        group.name,
      ).toEqual([
        ["invoice", "5000000"],
        ["debit_note", "14000000"],
        ["invoice", "2000000"],
      ]);
      // Invoice + notes = the period's calls.
      expect(BigInt(docs[0].subtotal) + BigInt(docs[1].subtotal)).toBe(BigInt(docs[0].calls));
      expect(docs[2].subtotal).toBe(docs[2].calls);
    }
  });

  it("refuses TRUNCATE of issued documents and of the ledger", async () => {
    for (const table of ["invoice_lines", "invoices", "ledger_entries"]) {
      const error = await db()
        .execute(sql.raw(`TRUNCATE ${table} CASCADE`))
        .then(
          () => undefined,
          (e: Error & { cause?: Error }) => e,
        );
      expect(error?.cause?.message ?? error?.message, table).toMatch(/TRUNCATE of \w+ refused/);
    }
    const [{ n }] = await queryRows<{ n: number }>(db(), sql`SELECT count(*)::int AS n FROM invoice_lines`);
    expect(n).toBeGreaterThan(0);
  });
});
