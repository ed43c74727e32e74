import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { openDatabase, queryRows, type DbHandle } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls } from "@/lib/rating/rerate";
import { createTestDatabase } from "@/lib/testing/engines";
import { runInvoices } from "./run-invoices";

const GROUPS = 40;
const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road" };
const NOW = new Date("2026-01-05T00:00:00Z");
const ZONES = ["UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata"];

// Two app processes (two connection pools) running the invoice run at once on one PostgreSQL: every period is
// invoiced exactly once, numbers stay gapless, and a re-rating yields exactly one note per changed invoice.
describe("two invoice runs at once on PostgreSQL", () => {
  let a: DbHandle;
  let b: DbHandle;
  let drop: () => Promise<void>;
  let groupIds: string[];

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    a = await openDatabase({ url: created.url });
    b = await openDatabase({ url: created.url });
    groupIds = [];
    const cdrs = [];
    for (let g = 0; g < GROUPS; g++) {
      const group = await createBillingGroup(a.db, {
        name: `G${g}`,
        currency: "USD",
        openingBalanceMicros: 10_000_000n,
      });
      await setBillingGroupInvoicing(a.db, group.id, { timeZone: ZONES[g % ZONES.length], taxRatePpm: 88_750 });
      await a.db.execute(sql`UPDATE billing_groups SET created_at = '2025-09-15T00:00:00Z' WHERE id = ${group.id}`);
      await importSellRates(a.db, group.id, parseRateCsv("prefix,rate,increment\n1,0.0123,1/1\n"), undefined, {
        effectiveFrom: new Date("2025-01-01T00:00:00Z"),
      });
      groupIds.push(group.id);
      for (let i = 0; i < 6; i++) {
        const start = Date.parse("2025-09-20T00:00:00Z") + i * 17 * 86_400_000 + g * 3_600_000;
        cdrs.push(
          answeredCdr({
            uuid: `c-${g}-${i}`,
            billingGroupId: group.id,
            startMs: start,
            seconds: 30 + i * 7,
            from: "15550001",
            to: "12125550100",
          }),
        );
      }
    }
    await ingestCdrs(a.db, cdrs);
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  const numbers = async (kind: string) =>
    (
      await queryRows<{ number: string }>(a.db, sql`SELECT number FROM invoices WHERE kind = ${kind} ORDER BY number`)
    ).map((r) => r.number);
  const gapless = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}-${String(i + 1).padStart(6, "0")}`);

  it("issues every period once, with gapless numbers, and each note once", async () => {
    const [first, second] = await Promise.all([
      runInvoices(a.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
      runInvoices(b.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
    ]);
    // September to December: four closed months per group.
    expect(first.invoices + second.invoices).toBe(GROUPS * 4);
    expect(await numbers("invoice")).toEqual(gapless("INV", GROUPS * 4));
    const [perPeriod] = await queryRows<{ n: number }>(
      a.db,
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM invoices GROUP BY billing_group_id, period_start HAVING count(*) > 1) d`,
    );
    expect(perPeriod.n).toBe(0);

    // A dearer deck from November: November and December change for every group, once each.
    for (const id of groupIds)
      await importSellRates(a.db, id, parseRateCsv("prefix,rate,increment\n1,0.0199,1/1\n"), undefined, {
        effectiveFrom: new Date("2025-11-01T00:00:00Z"),
      });
    await rerateCalls(a.db, { since: new Date("2025-10-31T00:00:00Z") });
    const [x, y] = await Promise.all([
      runInvoices(a.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
      runInvoices(b.db, { now: NOW, issuer: ISSUER, concurrency: 4 }),
    ]);
    expect(x.invoices + y.invoices).toBe(0);
    const [changed] = await queryRows<{ n: number }>(
      a.db,
      sql`SELECT count(*)::int AS n FROM invoices i WHERE kind = 'invoice' AND EXISTS (
            SELECT 1 FROM calls c WHERE c.billing_group_id = i.billing_group_id AND c.start_time >= i.period_start
              AND c.start_time < i.period_end AND c.start_time >= '2025-11-01T00:00:00Z')`,
    );
    expect(x.notes + y.notes).toBe(changed.n);
    expect(await numbers("debit_note")).toEqual(gapless("DN", changed.n));
    // Every group's documents + the remainder its last one carries = the re-rated calls of its invoiced periods, to
    // the micro (docs/contract.md §10: each remainder is taken in by the next document, whichever run issued it).
    const [wrong] = await queryRows<{ n: number }>(
      a.db,
      sql`SELECT count(*)::int AS n FROM billing_groups g WHERE g.id = ANY(${`{${groupIds.join(",")}}`}::text[]) AND
            (SELECT sum(subtotal_micros) FROM invoices d WHERE d.billing_group_id = g.id) +
            (SELECT remainder_micros FROM invoices d WHERE d.billing_group_id = g.id ORDER BY issued_at DESC, seq DESC
             LIMIT 1) <>
            (SELECT coalesce(sum(price_micros), 0) FROM calls c WHERE c.billing_group_id = g.id AND c.start_time <
              (SELECT max(period_end) FROM invoices d WHERE d.billing_group_id = g.id))`,
    );
    expect(wrong.n).toBe(0);
    const again = await runInvoices(b.db, { now: NOW, issuer: ISSUER });
    expect(again).toMatchObject({ invoices: 0, notes: 0 });
  }, 120_000);
});
