import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { MONEY_BOUND_MICROS } from "@/lib/money/micros";
import { createBillingGroup, getBillingGroup } from "./groups";
import { BalanceRefusedError, callDebits, moveBalances, writeLedgerEntries } from "./ledger";

describeOnEngines("writeLedgerEntries", (handle) => {
  it("writes every entry as given, amounts exact beyond 2^53", async () => {
    const group = await createBillingGroup(handle().db, { name: "Ledger", currency: "EUR" });
    const big = 9_007_199_254_740_993n; // 2^53 + 1: a float would round it
    await writeLedgerEntries(handle().db, [
      { billingGroupId: group.id, kind: "topup", amountMicros: big, callId: null, description: "Top-up" },
      { billingGroupId: group.id, kind: "adjustment", amountMicros: -1n, callId: 42n, description: "Call re-rated" },
    ]);
    await writeLedgerEntries(handle().db, []);
    const rows = await queryRows<{ kind: string; amount: string; call_id: string | null; description: string }>(
      handle().db,
      sql`SELECT kind, amount_micros::text AS amount, call_id::text AS call_id, description FROM ledger_entries
          WHERE billing_group_id = ${group.id} ORDER BY id`,
    );
    expect(rows).toEqual([
      { kind: "topup", amount: big.toString(), call_id: null, description: "Top-up" },
      { kind: "adjustment", amount: "-1", call_id: "42", description: "Call re-rated" },
    ]);
  });
});

describeOnEngines("moveBalances", (handle) => {
  const entriesOf = (groupId: string) =>
    queryRows<{ id: string; kind: string; amount: string; description: string }>(
      handle().db,
      sql`SELECT id::text AS id, kind, amount_micros::text AS amount, description FROM ledger_entries
          WHERE billing_group_id = ${groupId} ORDER BY id`,
    );

  it("moves each balance by the sum of its entries and writes them, answering the new balances", async () => {
    const a = await createBillingGroup(handle().db, { name: "A", currency: "EUR", openingBalanceMicros: 10n });
    const b = await createBillingGroup(handle().db, { name: "B", currency: "EUR" });
    const big = 9_007_199_254_740_993n; // 2^53 + 1
    const moved = await handle().db.transaction((tx) =>
      moveBalances(tx, [
        { billingGroupId: b.id, kind: "topup", amountMicros: big, callId: null, description: "Wire" },
        { billingGroupId: a.id, kind: "adjustment", amountMicros: -3n, callId: 7n, description: "Re-rated" },
        { billingGroupId: b.id, kind: "adjustment", amountMicros: -1n, callId: null, description: "Fee" },
      ]),
    );
    expect(moved.balances).toEqual(
      new Map([
        [a.id, 7n],
        [b.id, big - 1n],
      ]),
    );
    expect((await getBillingGroup(handle().db, b.id))?.balanceMicros).toBe(big - 1n);
    const [aRows, bRows] = [await entriesOf(a.id), await entriesOf(b.id)];
    expect(bRows.map((r) => [r.kind, r.amount, r.description])).toEqual([
      ["topup", big.toString(), "Wire"],
      ["adjustment", "-1", "Fee"],
    ]);
    // The answer names the entries in the order given.
    expect(moved.entries.map((e) => e.id)).toEqual([bRows[0].id, aRows[1].id, bRows[1].id]);
  });

  it("writes a group's entries that sum to zero without moving its balance", async () => {
    const group = await createBillingGroup(handle().db, { name: "Zero", currency: "EUR", openingBalanceMicros: 5n });
    const moved = await handle().db.transaction((tx) =>
      moveBalances(tx, [
        { billingGroupId: group.id, kind: "adjustment", amountMicros: 2n, callId: null, description: "+" },
        { billingGroupId: group.id, kind: "adjustment", amountMicros: -2n, callId: null, description: "-" },
      ]),
    );
    expect(moved.balances.size).toBe(0);
    expect(moved.entries).toHaveLength(2);
    expect((await getBillingGroup(handle().db, group.id))?.balanceMicros).toBe(5n);
  });

  it("moves only the balances of call debits the caller's statement wrote: rated calls that cost something", async () => {
    const group = await createBillingGroup(handle().db, { name: "Calls", currency: "EUR", openingBalanceMicros: 100n });
    const g = group.id;
    const moved = await handle().db.transaction((tx) =>
      moveBalances(
        tx,
        callDebits([
          { billingGroupId: g, rated: true, priceMicros: 30n },
          { billingGroupId: g, rated: false, priceMicros: 50n },
          { billingGroupId: g, rated: true, priceMicros: 0n },
          { billingGroupId: g, rated: true, priceMicros: 1n },
        ]),
      ),
    );
    expect(moved).toEqual({ balances: new Map([[g, 69n]]), entries: [] });
    expect((await entriesOf(g)).map((r) => r.kind)).toEqual(["opening"]);
  });

  it("refuses, writing nothing, a sum past the bound (withinBound) and an unknown group", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Full",
      currency: "EUR",
      openingBalanceMicros: MONEY_BOUND_MICROS,
    });
    const entry = {
      billingGroupId: group.id,
      kind: "topup",
      amountMicros: 1n,
      callId: null,
      description: "x",
    } as const;
    const refusal = (movement: typeof entry, withinBound: boolean) =>
      handle()
        .db.transaction((tx) => moveBalances(tx, [movement], { withinBound }))
        .then(
          () => undefined,
          (error: unknown) => (error instanceof BalanceRefusedError ? error.reason : error),
        );
    expect(await refusal(entry, true)).toBe("past_bound");
    expect(await refusal({ ...entry, billingGroupId: "bg_missing" }, true)).toBe("unknown_group");
    expect(await refusal({ ...entry, billingGroupId: "bg_missing" }, false)).toBe("unknown_group");
    expect((await getBillingGroup(handle().db, group.id))?.balanceMicros).toBe(MONEY_BOUND_MICROS);
    expect((await entriesOf(group.id)).map((r) => r.kind)).toEqual(["opening"]);
  });
});

describe("the ledger's one writer", () => {
  const root = path.resolve(__dirname, "../..");
  const sources = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "testing" || e.name === "migrations" ? [] : sources(rel);
      return /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [rel] : [];
    });

  it("is lib/billing/ledger.ts: no other module of app/ or lib/ inserts ledger entries", () => {
    const writers = [...sources("lib"), ...sources("app")].filter((file) =>
      /INSERT\s+INTO\s+ledger_entries|\.insert\(\s*ledgerEntries\s*\)/i.test(
        fs.readFileSync(path.join(root, file), "utf8"),
      ),
    );
    expect(writers).toEqual([path.join("lib", "billing", "ledger.ts")]);
  });

  it("moves balances only there too: no other module of app/ or lib/ updates balance_micros", () => {
    const movers = [...sources("lib"), ...sources("app")].filter((file) =>
      /SET\s+balance_micros\s*=|balanceMicros:\s*sql/i.test(fs.readFileSync(path.join(root, file), "utf8")),
    );
    expect(movers).toEqual([path.join("lib", "billing", "ledger.ts")]);
  });
});
