import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

describe("admin: a group's invoicing settings and the invoice run", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb("pglite");
  });
  afterAll(async () => {
    await handle?.close();
  });
  const run = (argv: string[]) => runAdminCommand(handle.db, argv) as Promise<Record<string, unknown>>;

  it("sets the zone (as the database spells it), mode and exact tax rate; refuses what the database cannot use", async () => {
    const group = await createBillingGroup(handle.db, { name: "Settings", currency: "EUR" });
    expect(await run(["groups", "invoicing", "--group", group.id])).toMatchObject({
      timeZone: "UTC",
      billingMode: "prepaid",
      taxRate: "0",
    });
    expect(
      await run([
        "groups",
        "invoicing",
        "--group",
        group.id,
        "--time-zone",
        "europe/berlin",
        "--mode",
        "postpaid",
        "--tax-rate",
        "8.875",
      ]),
    ).toMatchObject({ timeZone: "Europe/Berlin", billingMode: "postpaid", taxRate: "8.875" });
    // Intl knows US/Pacific-New; the database's tzdata does not: refused, nothing changed.
    await expect(run(["groups", "invoicing", "--group", group.id, "--time-zone", "US/Pacific-New"])).rejects.toThrow(
      /pg_timezone_names/,
    );
    await expect(run(["groups", "invoicing", "--group", group.id, "--time-zone", "Mars/Olympus"])).rejects.toThrow(
      UsageError,
    );
    await expect(run(["groups", "invoicing", "--group", group.id, "--tax-rate", "0.00001"])).rejects.toThrow(
      UsageError,
    );
    await expect(run(["groups", "invoicing", "--group", group.id, "--tax-rate", "101"])).rejects.toThrow(UsageError);
    await expect(run(["groups", "invoicing", "--group", group.id, "--mode", "credit"])).rejects.toThrow(UsageError);
    await expect(run(["groups", "invoicing", "--group", "bg_missing", "--mode", "prepaid"])).rejects.toThrow(
      /no billing group/,
    );
    expect(await run(["groups", "invoicing", "--group", group.id])).toMatchObject({
      timeZone: "Europe/Berlin",
      taxRate: "8.875",
    });
  });

  it("runs the invoice run once per closed month, idempotently", async () => {
    const group = await createBillingGroup(handle.db, { name: "Run", currency: "USD" });
    await handle.db.execute(sql`UPDATE billing_groups SET created_at = '2026-01-10T00:00:00Z' WHERE id = ${group.id}`);
    const first = await run(["invoices", "run", "--now", "2026-03-01T00:00:00Z"]);
    expect(first).toMatchObject({ now: "2026-03-01T00:00:00.000Z", notes: 0 });
    expect(first.invoices).toBeGreaterThanOrEqual(2); // January and February (and the other test's group's)
    expect(await run(["invoices", "run", "--now", "2026-03-01T00:00:00Z"])).toMatchObject({ invoices: 0, notes: 0 });
    await expect(run(["invoices", "run", "--now", "March"])).rejects.toThrow(UsageError);
  });

  it("refuses an instant later than now (it would issue a month that has not closed), issuing nothing", async () => {
    const group = await createBillingGroup(handle.db, { name: "Future", currency: "USD" });
    const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
    await expect(run(["invoices", "run", "--now", later])).rejects.toThrow(/--now must not be later than now/);
    const [{ n }] = await queryRows<{ n: number }>(
      handle.db,
      sql`SELECT count(*)::int AS n FROM invoices WHERE billing_group_id = ${group.id}`,
    );
    expect(n).toBe(0);
  });
});
