import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing, type BillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { minorUnitMicros } from "@/lib/money/currency-decimals";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls } from "@/lib/rating/rerate";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { runInvoices } from "./run-invoices";
import { taxMicros } from "./tax";

// Issue 28 items 2 and 3: documents are payable amounts (every line, subtotal, tax and total in the currency's minor
// unit, ISO 4217: USD 2, JPY 0, KWD 3), the sub-minor-unit remainder is carried from document to document, so all of a
// group's documents + the last one's remainder = the calls of its invoiced periods, to the micro, month after month;
// and usage lines are per destination name, not per prefix (docs/contract.md §10).

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road\nLondon" };
const TAX_PPM = 88_750;
// Per-second billing at sub-cent rates: nearly every call price has micros.
const DECK =
  "prefix,rate,increment,description\n" +
  "1212200,0.0123,1/1,USA New York\n1212201,0.0123,1/1,USA New York\n1310,0.0071,1/1,USA Los Angeles\n44,0.0311,1/1,United Kingdom\n";
const DESTINATIONS = ["12122001234", "12122019876", "13105550100", "442071234567", "999123"];

interface Doc {
  id: string;
  kind: string;
  number: string;
  invoice_id: string | null;
  period_start: string;
  period_end: string;
  subtotal: string;
  tax: string;
  total: string;
  remainder: string;
}

let serial = 0;
function cdr(group: BillingGroup, startMs: number, seconds: number, to: string) {
  return answeredCdr({ uuid: `pay-${group.id}-${serial++}`, billingGroupId: group.id, startMs, seconds, to });
}

/** A month of calls: one every 9h17m from `from`, 1-600 s, to each destination in turn. */
function month(group: BillingGroup, from: string, seed: number) {
  const start = Date.parse(from);
  return Array.from({ length: 80 }, (_, i) =>
    cdr(group, start + i * 33_420_000, 1 + ((i * 37 + seed) % 600), DESTINATIONS[(i + seed) % DESTINATIONS.length]),
  );
}

async function documents(db: Db, groupId: string): Promise<Doc[]> {
  return queryRows<Doc>(
    db,
    sql`SELECT id, kind, number, invoice_id, period_start::text, period_end::text, subtotal_micros::text AS subtotal,
               tax_micros::text AS tax, total_micros::text AS total, remainder_micros::text AS remainder
        FROM invoices WHERE billing_group_id = ${groupId} ORDER BY issued_at, seq`,
  );
}

async function callsSince(db: Db, groupId: string, from: string, until: string): Promise<bigint> {
  const [row] = await queryRows<{ s: string }>(
    db,
    sql`SELECT coalesce(sum(price_micros), 0)::text AS s FROM calls WHERE billing_group_id = ${groupId}
        AND start_time >= ${from}::timestamptz AND start_time < ${until}::timestamptz`,
  );
  return BigInt(row.s);
}

describeOnEngines("payable amounts", (handle) => {
  const db = () => handle().db;

  it.each(["USD", "JPY", "KWD"])(
    "%s: every document in minor units, and over five months with late and re-rated calls documents + the remainder = the calls",
    async (currency) => {
      const unit = minorUnitMicros(currency);
      const group = await createBillingGroup(db(), { name: `Pay ${currency}`, currency });
      await setBillingGroupInvoicing(db(), group.id, {
        timeZone: "UTC",
        taxRatePpm: TAX_PPM,
        billingMode: "postpaid",
      });
      await db().execute(sql`UPDATE billing_groups SET created_at = '2026-01-01T00:00:00Z' WHERE id = ${group.id}`);
      await importSellRates(db(), group.id, parseRateCsv(DECK), undefined, {
        effectiveFrom: new Date("2025-01-01T00:00:00Z"),
      });
      const months = ["2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01", "2026-05-01", "2026-06-01"];
      for (let m = 0; m < 5; m++) {
        await ingestCdrs(db(), month(group, `${months[m]}T00:10:00Z`, m));
        // A late call of the month before (a debit note), and from March a re-rating of part of the month before.
        if (m > 0)
          await ingestCdrs(db(), [cdr(group, Date.parse(`${months[m - 1]}T12:00:00Z`), 47 + m, "13105550100")]);
        if (m === 3) {
          await importSellRates(db(), group.id, parseRateCsv(DECK.replace("0.0311", "0.0297")), undefined, {
            effectiveFrom: new Date("2026-03-15T00:00:00Z"),
          });
          await rerateCalls(db(), { since: new Date("2026-03-15T00:00:00Z"), billingGroupId: group.id });
        }
        await runInvoices(db(), { now: new Date(`${months[m + 1]}T01:00:00Z`), issuer: ISSUER });
      }
      const docs = await documents(db(), group.id);
      expect(docs.filter((d) => d.kind === "invoice")).toHaveLength(5);
      expect(docs.filter((d) => d.kind !== "invoice").length).toBeGreaterThanOrEqual(4);
      for (const d of docs) {
        // Payable: subtotal, tax and total are whole minor units; tax on the subtotal; total = subtotal + tax.
        for (const amount of [d.subtotal, d.tax, d.total]) expect(BigInt(amount) % unit, `${d.number}`).toBe(0n);
        expect(BigInt(d.total)).toBe(BigInt(d.subtotal) + BigInt(d.tax));
        // The remainder carried is below half a minor unit.
        expect(2n * (BigInt(d.remainder) < 0n ? -BigInt(d.remainder) : BigInt(d.remainder))).toBeLessThanOrEqual(unit);
        // Every line in minor units; usage and rounding lines make the subtotal.
        const lines = await queryRows<{ kind: string; amount: string }>(
          db(),
          sql`SELECT kind, amount_micros::text AS amount FROM invoice_lines WHERE invoice_id = ${d.id}`,
        );
        for (const l of lines.filter((l) => l.kind === "usage" || l.kind === "rounding"))
          expect(BigInt(l.amount) % unit, `${d.number} ${l.kind}`).toBe(0n);
        expect(
          lines.filter((l) => l.kind === "usage" || l.kind === "rounding").reduce((s, l) => s + BigInt(l.amount), 0n),
        ).toBe(BigInt(d.subtotal));
      }
      // Each invoice + its notes carry the tax of what they bill.
      for (const invoice of docs.filter((d) => d.kind === "invoice")) {
        const mine = docs.filter((d) => d.id === invoice.id || d.invoice_id === invoice.id);
        const billed = mine.reduce((s, d) => s + BigInt(d.subtotal), 0n);
        expect(mine.reduce((s, d) => s + BigInt(d.tax), 0n)).toBe(taxMicros(billed, TAX_PPM, currency));
      }
      // The invariant over the months: all documents + the last one's remainder = the calls, to the micro.
      const calls = await callsSince(db(), group.id, "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z");
      const billed = docs.reduce((s, d) => s + BigInt(d.subtotal), 0n);
      expect(calls % unit).not.toBe(0n);
      expect(billed + BigInt(docs.at(-1)!.remainder)).toBe(calls);
    },
  );

  it("groups usage lines by destination name; the prefix is kept where one prefix makes the line", async () => {
    const group = await createBillingGroup(db(), { name: "Grouped", currency: "USD" });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2026-01-01T00:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(db(), group.id, parseRateCsv(DECK), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    await ingestCdrs(db(), month(group, "2026-01-01T00:10:00Z", 0));
    await runInvoices(db(), { now: new Date("2026-02-01T01:00:00Z"), issuer: ISSUER });
    const [invoice] = await documents(db(), group.id);
    const lines = await queryRows<{ kind: string; prefix: string | null; description: string; calls: string }>(
      db(),
      sql`SELECT kind, prefix, description, calls::text AS calls FROM invoice_lines WHERE invoice_id = ${invoice.id}
          ORDER BY line_no`,
    );
    expect(lines.filter((l) => l.kind === "usage").map((l) => [l.prefix, l.description, l.calls])).toEqual([
      ["1310", "USA Los Angeles", "16"],
      [null, "USA New York", "32"],
      ["44", "United Kingdom", "16"],
      [null, "Unrated calls", "16"],
    ]);
  });
});
