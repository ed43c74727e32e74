import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "@/lib/admin/command";
import { runAdminCommand } from "@/lib/admin/commands";
import { findKeyBySecret } from "@/lib/auth/find-key";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import type { DemoResult } from "./run-demo";

describe("demo on pglite", () => {
  let handle: DbHandle;
  let result: DemoResult;
  const progress: string[] = [];

  beforeAll(async () => {
    handle = await openTestDb("pglite");
    result = (await runAdminCommand(handle.db, ["demo", "--calls", "1500"], (e) =>
      progress.push(e.phase),
    )) as DemoResult;
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("fills groups in two currencies, suppliers, rate cards and the calls, with progress", async () => {
    expect(result.calls).toBe(1500);
    expect(new Set(result.groups.map((g) => g.currency))).toEqual(new Set(["USD", "EUR"]));
    expect(result.suppliers).toHaveLength(2);
    const [counts] = await queryRows<{ calls: number; unrated: number; sell: number; buy: number; negative: number }>(
      handle.db,
      sql`SELECT (SELECT count(*) FROM calls)::int AS calls,
                 (SELECT count(*) FROM calls WHERE NOT rated)::int AS unrated,
                 (SELECT count(*) FROM sell_rates)::int AS sell,
                 (SELECT count(*) FROM buy_rates)::int AS buy,
                 (SELECT count(*) FROM calls WHERE buy_cost_micros > price_micros)::int AS negative`,
    );
    expect(counts.calls).toBe(1500);
    expect(counts.unrated).toBeGreaterThan(0);
    expect(counts.negative).toBeGreaterThan(0);
    expect(counts.sell).toBeGreaterThan(3000 * result.groups.length);
    expect(counts.buy).toBeGreaterThan(3000 * 2);
    expect(progress).toContain("calls");
  });

  it("leaves every group's balance equal to the sum of its ledger", async () => {
    const rows = await queryRows<{ id: string; balance: string; ledger: string; debits: number; rated: number }>(
      handle.db,
      sql`SELECT g.id, g.balance_micros::text AS balance,
                 (SELECT COALESCE(SUM(amount_micros), 0) FROM ledger_entries l WHERE l.billing_group_id = g.id)::text AS ledger,
                 (SELECT count(*) FROM ledger_entries l WHERE l.billing_group_id = g.id AND kind = 'debit')::int AS debits,
                 (SELECT count(*) FROM calls c WHERE c.billing_group_id = g.id AND rated AND price_micros > 0)::int AS rated
          FROM billing_groups g`,
    );
    expect(rows).toHaveLength(result.groups.length);
    for (const row of rows) {
      expect(row.balance).toBe(row.ledger);
      expect(row.debits).toBe(row.rated);
    }
  });

  it("returns four working keys of the four kinds", async () => {
    const main = result.groups[0].id;
    // Effective scopes: calls:read includes invoices:read (docs/contract.md §2).
    const expected = {
      read: { scopes: ["calls:read", "invoices:read"], group: main },
      cost: { scopes: ["calls:read", "calls:read_cost", "invoices:read"], group: main },
      platform: { scopes: ["calls:read", "calls:read_cost", "invoices:read"], group: null },
      ingest: { scopes: ["cdrs:write"], group: null },
    };
    for (const [kind, want] of Object.entries(expected)) {
      const key = result.keys[kind as keyof DemoResult["keys"]];
      const principal = await findKeyBySecret(handle.db, key.key);
      expect(principal, kind).not.toBeNull();
      expect([...principal!.scopes].sort(), kind).toEqual(want.scopes);
      expect(principal!.billingGroupId, kind).toBe(want.group);
      expect(key.billingGroupId).toBe(want.group);
    }
  });

  it("refuses a database that is not empty", async () => {
    await expect(runAdminCommand(handle.db, ["demo", "--calls", "10"])).rejects.toThrow(UsageError);
    await expect(runAdminCommand(handle.db, ["demo", "--calls", "10"])).rejects.toThrow(/not empty/);
  });
});
