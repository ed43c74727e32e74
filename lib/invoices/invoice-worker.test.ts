import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { startInvoiceWorker } from "./invoice-worker";

describe("the server's invoice worker", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb("pglite");
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("runs at start and again every interval, issuing what closed", async () => {
    const group = await createBillingGroup(handle.db, { name: "Worker", currency: "EUR" });
    await handle.db.execute(
      sql`UPDATE billing_groups SET created_at = now() - interval '75 days' WHERE id = ${group.id}`,
    );
    let rounds = 0;
    const worker = startInvoiceWorker(handle.db, 20, () => {
      rounds += 1;
    });
    try {
      await waitUntil(() => rounds >= 3, "three rounds of the invoice run", 60_000);
    } finally {
      await worker.stop();
    }
    const rows = await queryRows<{ n: number }>(
      handle.db,
      sql`SELECT count(*)::int AS n FROM invoices WHERE billing_group_id = ${group.id}`,
    );
    // 75 days back: at least two closed months, each invoiced once however many rounds ran.
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
    expect(rows[0].n).toBeLessThanOrEqual(3);
  });
});
