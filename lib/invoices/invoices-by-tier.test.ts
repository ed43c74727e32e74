import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { ArchiveRefusedError, archiveCalls } from "@/lib/calls/archive-calls";
import { openDatabase, queryRows, type Db, type DbHandle } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createTestDatabase } from "@/lib/testing/engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { getInvoice } from "./read-invoices";
import { renderInvoicePdf } from "./render-pdf";
import { runInvoices } from "./run-invoices";
import { seriesOf } from "./insert-document";
import { serializeInvoice } from "./serialize-invoice";

// Invoices by tier (docs/contract.md "Reseller tiers", "Invoices by tier"): the operator invoices root accounts, each
// reseller invoices its children in its own gapless series, and a reseller's invoice bills its tier charges.

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road" };
const NOW = new Date("2026-01-05T00:00:00Z");
const ZONES = ["UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata"];
const OLD = new Date("2025-01-01T00:00:00Z");

/** R1 (root) > R2 > C0..C(n-1); R1 > K0..K(n-1); D0..D(n-1) roots. Calls of every C, K and D from September. */
async function seedTree(db: Db, n: number) {
  const mk = async (name: string, rate: string, zone: string, parentId?: string) => {
    const g = await createBillingGroup(db, { name, currency: "USD", openingBalanceMicros: 10n ** 9n, parentId });
    await setBillingGroupInvoicing(db, g.id, { timeZone: zone, taxRatePpm: 88_750 });
    await db.execute(sql`UPDATE billing_groups SET created_at = '2025-09-15T00:00:00Z' WHERE id = ${g.id}`);
    await importSellRates(db, g.id, parseRateCsv(`prefix,rate,increment,description\n1,${rate},1/1,USA\n`), undefined, {
      effectiveFrom: OLD,
    });
    return g.id;
  };
  const r1 = await mk("Reseller One", "0.0061", "UTC");
  const r2 = await mk("Reseller Two", "0.0083", "Europe/Berlin", r1);
  const c: string[] = [];
  const k: string[] = [];
  const d: string[] = [];
  for (let i = 0; i < n; i++) {
    c.push(await mk(`C${i}`, "0.0123", ZONES[i % ZONES.length], r2));
    k.push(await mk(`K${i}`, "0.0111", ZONES[(i + 1) % ZONES.length], r1));
    d.push(await mk(`D${i}`, "0.0130", ZONES[(i + 2) % ZONES.length]));
  }
  const cdrs = [...c, ...k, ...d].flatMap((group, g) =>
    Array.from({ length: 6 }, (_, i) =>
      answeredCdr({
        uuid: `t-${g}-${i}`,
        billingGroupId: group,
        startMs: Date.parse("2025-09-20T00:00:00Z") + i * 17 * 86_400_000 + g * 3_600_000 + 777,
        seconds: 30 + i * 7 + g,
        from: "15550001",
        to: "12125550100",
      }),
    ),
  );
  await ingestCdrs(db, cdrs);
  return { r1, r2, c, k, d };
}

const gapless = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i + 1).padStart(6, "0")}`);

describe("invoice runs by tier, two at once on PostgreSQL", () => {
  let a: DbHandle;
  let b: DbHandle;
  let drop: () => Promise<void>;
  let tree: Awaited<ReturnType<typeof seedTree>>;
  const N = 8;

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    a = await openDatabase({ url: created.url });
    b = await openDatabase({ url: created.url });
    tree = await seedTree(a.db, N);
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  const issued = (where: ReturnType<typeof sql>) =>
    queryRows<{ number: string; issuer_name: string; billing_group_id: string }>(
      a.db,
      sql`SELECT number, issuer_name, billing_group_id FROM invoices WHERE kind = 'invoice' AND ${where} ORDER BY number`,
    );

  it("numbers each issuer's invoices in its own gapless series and names it as the issuer", async () => {
    const [first, second] = await Promise.all([
      runInvoices(a.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
      runInvoices(b.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
    ]);
    // September to December: four closed months for each of 3 + 3N accounts.
    expect(first.invoices + second.invoices).toBe((2 + 3 * N) * 4);
    const operator = await issued(sql`billing_group_id IN (SELECT id FROM billing_groups WHERE parent_id IS NULL)`);
    expect(operator.map((i) => i.number)).toEqual(gapless("INV", (1 + N) * 4));
    expect(new Set(operator.map((i) => i.issuer_name))).toEqual(new Set([ISSUER.name]));
    const byR1 = await issued(sql`billing_group_id IN (SELECT id FROM billing_groups WHERE parent_id = ${tree.r1})`);
    expect(byR1.map((i) => i.number)).toEqual(gapless(seriesOf("invoice", tree.r1).prefix, (1 + N) * 4));
    expect(new Set(byR1.map((i) => i.issuer_name))).toEqual(new Set(["Reseller One"]));
    const byR2 = await issued(sql`billing_group_id IN (SELECT id FROM billing_groups WHERE parent_id = ${tree.r2})`);
    expect(byR2.map((i) => i.number)).toEqual(gapless(seriesOf("invoice", tree.r2).prefix, N * 4));
    expect(new Set(byR2.map((i) => i.issuer_name))).toEqual(new Set(["Reseller Two"]));
    // The customer's document, JSON and PDF, names its reseller as the issuer and carries the reseller's number.
    const doc = await getInvoice(
      a.db,
      testPrincipal(byR2[0].billing_group_id),
      (await queryRows<{ id: string }>(a.db, sql`SELECT id FROM invoices WHERE number = ${byR2[0].number}`))[0].id,
    );
    expect(serializeInvoice(doc)).toMatchObject({ number: byR2[0].number, issuer: { name: "Reseller Two" } });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tier-pdf-")), "c.pdf");
    fs.writeFileSync(file, await renderInvoicePdf(doc));
    const { stdout: text } = await promisify(execFile)("pdftotext", ["-layout", file, "-"]);
    expect(text).toContain("Reseller Two");
    expect(text).toContain(`No. ${byR2[0].number}`);
    expect(text).not.toContain(ISSUER.name);
    // The number names the issuer without showing an account id as text (the portal never does).
    expect(byR2[0].number).toMatch(/^INV-[0-9A-Z]{16}-000001$/);
    expect(byR2[0].number).not.toMatch(/bg_/);
    const again = await runInvoices(b.db, { now: NOW, issuer: ISSUER });
    expect(again).toMatchObject({ invoices: 0, notes: 0 });
  }, 120_000);

  it("bills a reseller its tier charges of the period, and a sub-reseller's invoice totals them exactly", async () => {
    // Each reseller invoice's usage lines (exact) against its tier charges summed straight from call_tier_charges.
    const rows = await queryRows<{ g: string; start: string; exact: string; charges: string; lines: string }>(
      a.db,
      sql`SELECT i.billing_group_id AS g, i.period_start::text AS start,
            (SELECT coalesce(sum(l.exact_micros), 0) FROM invoice_lines l WHERE l.invoice_id = i.id AND l.kind = 'usage')::text AS exact,
            (SELECT coalesce(sum(t.price_micros), 0) FROM call_tier_charges t WHERE t.tier_group_id = i.billing_group_id
               AND t.start_time >= i.period_start AND t.start_time < i.period_end)::text AS charges,
            (SELECT string_agg(l.description, '|') FROM invoice_lines l WHERE l.invoice_id = i.id AND l.kind = 'usage') AS lines
          FROM invoices i WHERE i.kind = 'invoice' AND i.billing_group_id IN (${tree.r1}, ${tree.r2})`,
    );
    expect(rows).toHaveLength(8);
    let withCharges = 0;
    for (const r of rows) {
      expect(r.exact, `${r.g} ${r.start}`).toBe(r.charges);
      if (BigInt(r.charges) > 0n) {
        withCharges++;
        expect(r.lines).toContain("Customers' calls: USA");
      }
    }
    expect(withCharges).toBeGreaterThan(4);
  });
});

describeOnEngines("archiving below a reseller", (handle) => {
  it("waits for every tier above a call to be invoiced, not only the call's account", async () => {
    const db = handle().db;
    const tree = await seedTree(db, 1);
    const customer = tree.c[0];
    // The customer's periods are invoiced, its resellers' are not: its calls carry their tier charges still unbilled.
    await db.execute(
      sql`INSERT INTO invoiced_until (billing_group_id, period_end) VALUES (${customer}, '2026-01-01T00:00:00Z')`,
    );
    const before = new Date("2025-12-01T00:00:00Z");
    const refused = await archiveCalls(db, { before, billingGroupId: customer }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ArchiveRefusedError);
    expect(String((refused as Error).message)).toContain(tree.r2);
    expect(String((refused as Error).message)).toContain(tree.r1);
    // Once both tiers are invoiced too, the calls (and their tier charges) go.
    await db.execute(
      sql`INSERT INTO invoiced_until (billing_group_id, period_end) VALUES (${tree.r1}, '2026-01-01T00:00:00Z'), (${tree.r2}, '2026-01-01T00:00:00Z')`,
    );
    expect(await archiveCalls(db, { before, billingGroupId: customer })).toBeGreaterThan(0);
  }, 120_000);
});
