import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "@/lib/admin/command";
import { runAdminCommand } from "@/lib/admin/commands";
import { findKeyBySecret } from "@/lib/auth/find-key";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { runInvoices } from "@/lib/invoices/run-invoices";
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
    // Plus the reseller tier's customer's calls (demo-tiers.ts).
    expect(result.tiers.calls).toBe(24);
    expect(counts.calls).toBe(1500 + result.tiers.calls);
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
                 ((SELECT count(*) FROM calls c WHERE c.billing_group_id = g.id AND rated AND price_micros > 0)
                  -- A reseller is debited for its customers' calls too (its tier charges).
                  + (SELECT count(*) FROM call_tier_charges t WHERE t.tier_group_id = g.id AND rated AND price_micros > 0)
                 )::int AS rated
          FROM billing_groups g`,
    );
    expect(rows).toHaveLength(result.groups.length + 2); // and the reseller tier's two accounts
    for (const row of rows) {
      expect(row.balance).toBe(row.ledger);
      expect(row.debits).toBe(row.rated);
    }
  });

  it("dates the ledger as traffic would: the opening first, each debit at its call's end, nothing at the run", async () => {
    const [dates] = await queryRows<{ early: number; late: number; undated: number; opening_after: number }>(
      handle.db,
      sql`SELECT
            (SELECT count(*) FROM ledger_entries l JOIN calls c ON c.id = l.call_id
             WHERE l.kind = 'debit' AND l.created_at <> c.end_time)::int AS early,
            (SELECT count(*) FROM ledger_entries WHERE created_at > now() - interval '1 minute')::int AS late,
            (SELECT count(*) FROM ledger_entries l JOIN billing_groups g ON g.id = l.billing_group_id
             WHERE l.created_at < g.created_at)::int AS undated,
            (SELECT count(*) FROM ledger_entries l
             WHERE l.kind = 'opening' AND l.created_at > (SELECT min(start_time) FROM calls))::int AS opening_after`,
    );
    expect(dates).toEqual({ early: 0, late: 0, undated: 0, opening_after: 0 });
  });

  it("issues invoices whose balance block closes and matches the ledger, month after month", async () => {
    await runInvoices(handle.db);
    const invoices = await queryRows<{
      g: string;
      number: string;
      start: string;
      end: string;
      opening: string;
      topups: string;
      adjustments: string;
      debits: string;
      closing: string;
      ledger_before: string;
      ledger_debits: string;
      subtotal: string;
    }>(
      handle.db,
      sql`SELECT i.billing_group_id AS g, i.number, i.period_start::text AS start, i.period_end::text AS "end",
                 i.opening_balance_micros::text AS opening, i.topups_micros::text AS topups,
                 i.adjustments_micros::text AS adjustments, i.debits_micros::text AS debits,
                 i.closing_balance_micros::text AS closing, i.subtotal_micros::text AS subtotal,
                 (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries l
                  WHERE l.billing_group_id = i.billing_group_id AND l.created_at < i.period_end)::text AS ledger_before,
                 (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries l
                  WHERE l.billing_group_id = i.billing_group_id AND l.kind = 'debit'
                    AND l.created_at >= i.period_start AND l.created_at < i.period_end)::text AS ledger_debits
          FROM invoices i WHERE i.kind = 'invoice' ORDER BY i.billing_group_id, i.period_start`,
    );
    // 90 days of calls: at least two closed months for every group.
    expect(invoices.length).toBeGreaterThanOrEqual(2 * result.groups.length);
    let previous: (typeof invoices)[number] | undefined;
    let withCalls = 0;
    for (const i of invoices) {
      const sum = BigInt(i.opening) + BigInt(i.topups) + BigInt(i.adjustments) + BigInt(i.debits);
      expect(sum, i.number).toBe(BigInt(i.closing));
      expect(i.closing, i.number).toBe(i.ledger_before);
      expect(i.debits, i.number).toBe(i.ledger_debits);
      if (previous?.g === i.g) expect(i.opening, i.number).toBe(previous.closing);
      else expect(i.opening, i.number).toBe("0");
      // A month with calls has their debits (not the 0.00 of a history whose ledger was all written at the run).
      if (BigInt(i.subtotal) > 0n) {
        withCalls++;
        expect(BigInt(i.debits), i.number).toBeLessThan(0n);
      }
      previous = i;
    }
    expect(withCalls).toBeGreaterThanOrEqual(2 * result.groups.length);
    // The first group's first month holds its opening balance (opened at the first call) among its top-ups.
    const [first] = invoices;
    expect(BigInt(first.topups)).toBeGreaterThan(0n);
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
