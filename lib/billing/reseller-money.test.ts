import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachOf, type Reach } from "@/lib/auth/reach";
import type { Principal } from "@/lib/auth/principal";
import { authorizeCall } from "@/lib/authorizations/authorize";
import { openDatabase, queryRows, type Db, type DbHandle, type Executor } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createTestDatabase, POSTGRES_TEMPLATE_ENV } from "@/lib/testing/engines";
import type { ChangeContext } from "./change-context";
import { createAccount, createAccountAs } from "./create-account";
import { moveBalanceAs } from "./move-balance";
import { headroomOf } from "./tier-headroom";
import { updateAccountAs } from "./update-account";

// A reseller provisions and moves money within its own subtree (docs/contract.md "Reseller tiers", issue 32 item 4).

const BY: ChangeContext = { actor: { type: "api_key", id: "key_reseller", label: "reseller" }, address: null };
const PLATFORM = reachOf({ billingGroupId: null });

/** A reseller's reach as its principal reads it: its account and every descendant. */
async function reachOfGroup(db: Executor, own: string): Promise<Reach> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`WITH RECURSIVE t(id) AS (SELECT ${own}::text UNION ALL SELECT g.id FROM billing_groups g JOIN t ON g.parent_id = t.id)
        SELECT id FROM t`,
  );
  return reachOf({ billingGroupId: own, reachGroupIds: rows.map((r) => r.id) });
}

const balanceOf = async (db: Executor, id: string) => {
  const [row] = await queryRows<{ b: string; l: string }>(
    db,
    sql`SELECT balance_micros::text AS b,
          (SELECT COALESCE(sum(amount_micros), 0) FROM ledger_entries WHERE billing_group_id = ${id})::text AS l
        FROM billing_groups WHERE id = ${id}`,
  );
  // The ledger sums to the balance (docs/contract.md §1), whatever moved.
  expect(row.l).toBe(row.b);
  return BigInt(row.b);
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

describeOnEngines("a reseller's provisioning", (handle) => {
  it("creates customers under itself in its currency, never an opening balance, an accountcode or outside", async () => {
    const db = handle().db;
    const reseller = await createAccount(db, { name: "R", currency: "EUR" }, BY);
    const other = await createAccount(db, { name: "Other", currency: "EUR" }, BY);
    const child = await createAccountAs(db, await reachOfGroup(db, reseller.id), { name: "Customer" }, BY);
    // The reach it reads from now on holds the new customer (a new child NOTIFYs every principal cache, §21).
    const reach = await reachOfGroup(db, reseller.id);
    expect(child).toMatchObject({ parentId: reseller.id, currency: "EUR" });
    // A grandchild under its own child: the reach it reads now holds the child.
    const grandchild = await createAccountAs(
      db,
      await reachOfGroup(db, reseller.id),
      { name: "G", parentId: child.id },
      BY,
    );
    expect(grandchild.parentId).toBe(child.id);
    expect(await codeOf(createAccountAs(db, reach, { name: "X", parentId: other.id }, BY))).toBe("unknown_parent");
    expect(await codeOf(createAccountAs(db, reach, { name: "X", openingBalanceMicros: 1n }, BY))).toBe(
      "invalid_request_body",
    );
    expect(await codeOf(createAccountAs(db, reach, { name: "X", accountcode: "x-1" }, BY))).toBe("insufficient_scope");
    expect(await codeOf(createAccountAs(db, reach, { name: "X", currency: "USD" }, BY))).toBe("currency_mismatch");
    // The platform's root account still names its currency (the body's schema no longer can: a reseller's is its own).
    expect(await codeOf(createAccountAs(db, PLATFORM, { name: "Root" }, BY))).toBe("invalid_request_body");
    // Its customers only: its own account is its parent's to change, another's does not exist for it.
    expect(await codeOf(updateAccountAs(db, reach, child.id, { creditLimitMicros: 5_000_000n }, BY))).toBe("ok");
    expect(await codeOf(updateAccountAs(db, reach, reseller.id, { creditLimitMicros: 1n }, BY))).toBe(
      "insufficient_scope",
    );
    expect(await codeOf(updateAccountAs(db, reach, other.id, { name: "Mine" }, BY))).toBe("not_found");
    expect(await codeOf(updateAccountAs(db, reach, child.id, { accountcode: "c-1" }, BY))).toBe("insufficient_scope");
  });

  it("tops up and adjusts a customer from its own balance: two entries, one transaction, refused past its credit", async () => {
    const db = handle().db;
    const reseller = await createAccount(
      db,
      { name: "R", currency: "USD", openingBalanceMicros: 10_000_000n, creditLimitMicros: 5_000_000n },
      BY,
    );
    const child = await createAccount(db, { name: "C", parentId: reseller.id }, BY);
    const reach = await reachOfGroup(db, reseller.id);
    const top = await moveBalanceAs(
      db,
      reach,
      child.id,
      { kind: "topup", amountMicros: 12_000_000n, description: "March" },
      BY,
    );
    expect(top).toMatchObject({
      kind: "topup",
      amount: 12,
      account: { id: child.id, balance: 12 },
      fundedBy: { accountId: reseller.id, balance: -2 },
    });
    expect([await balanceOf(db, reseller.id), await balanceOf(db, child.id)]).toEqual([-2_000_000n, 12_000_000n]);
    const entries = await queryRows<{ g: string; kind: string; a: string; d: string }>(
      db,
      sql`SELECT billing_group_id AS g, kind, amount_micros::text AS a, description AS d FROM ledger_entries
          WHERE billing_group_id IN (${reseller.id}, ${child.id}) AND kind <> 'opening' ORDER BY id`,
    );
    expect(entries).toEqual([
      { g: child.id, kind: "topup", a: "12000000", d: "March" },
      { g: reseller.id, kind: "adjustment", a: "-12000000", d: `Top-up of ${child.id}: March` },
    ]);
    // 3 more would take it to -5 (its limit, covered); 3.000001 would pass it: 402, and nothing moved.
    const past = moveBalanceAs(db, reach, child.id, { kind: "topup", amountMicros: 3_000_001n, description: "x" }, BY);
    expect(await codeOf(past)).toBe("insufficient_funds");
    expect([await balanceOf(db, reseller.id), await balanceOf(db, child.id)]).toEqual([-2_000_000n, 12_000_000n]);
    // A negative adjustment brings money back to the reseller; a positive one pays out like a top-up.
    await moveBalanceAs(
      db,
      reach,
      child.id,
      { kind: "adjustment", amountMicros: -4_000_000n, description: "back" },
      BY,
    );
    expect([await balanceOf(db, reseller.id), await balanceOf(db, child.id)]).toEqual([2_000_000n, 8_000_000n]);
    const over = moveBalanceAs(
      db,
      reach,
      child.id,
      { kind: "adjustment", amountMicros: 7_000_001n, description: "y" },
      BY,
    );
    expect(await codeOf(over)).toBe("insufficient_funds");
    // Its own account: 403; the platform's top-up of the reseller comes from outside (no second entry).
    const own = moveBalanceAs(db, reach, reseller.id, { kind: "topup", amountMicros: 1n, description: "z" }, BY);
    expect(await codeOf(own)).toBe("insufficient_scope");
    const fromOutside = await moveBalanceAs(
      db,
      PLATFORM,
      reseller.id,
      { kind: "topup", amountMicros: 1_000_000n, description: "wire" },
      BY,
    );
    expect(fromOutside.fundedBy).toBeUndefined();
    expect(await balanceOf(db, reseller.id)).toBe(3_000_000n);
    const [audit] = await queryRows<{ after: { fundedBy?: { accountId: string; balance: string } } }>(
      db,
      sql`SELECT after FROM audit_events WHERE target_id = ${child.id} AND action = 'account.topped_up'`,
    );
    expect(audit.after.fundedBy).toMatchObject({ accountId: reseller.id, balance: "-2" });
  });
});

describeOnEngines("a reseller's top-ups against its open holds", (handle) => {
  const principal = (billingGroupId: string): Principal => ({
    keyId: "key_switch",
    scopes: new Set(["cdrs:write"]),
    billingGroupId,
    rateCardVersion: null,
    via: "api_key",
  });
  const authorize = (db: Executor, groupId: string, uuid: string, maxDurationSeconds: number) =>
    authorizeCall(db as Db, principal(groupId), { uuid, destination: "+4479000", maxDurationSeconds });

  it("pays out only what is not held for calls in progress at its tier (its customers' holds, its own reservations)", async () => {
    const db = handle().db;
    // The reseller pays 0.60/min (0.01/s): 10 of balance, no credit. Its customer pays it 1.20/min.
    const reseller = await createAccount(db, { name: "R", currency: "USD", openingBalanceMicros: 10_000_000n }, BY);
    await importSellRates(db, reseller.id, parseRateCsv("prefix,rate,increment\n44,0.60,1/1\n"));
    const customer = await createAccount(db, { name: "C", parentId: reseller.id }, BY);
    const other = await createAccount(db, { name: "D", parentId: reseller.id }, BY);
    await importSellRates(db, customer.id, parseRateCsv("prefix,rate,increment\n44,1.20,1/1\n"));
    await moveBalanceAs(db, PLATFORM, customer.id, { kind: "topup", amountMicros: 100_000_000n, description: "w" }, BY);
    const reach = await reachOfGroup(db, reseller.id);
    // The customer's call of 599 s holds 6.00 at the reseller (600 s at its deck); the reseller's own of 99 s 1.00.
    await authorize(db, customer.id, `held-${process.pid}-1`, 599);
    await authorize(db, reseller.id, `held-${process.pid}-2`, 99);
    // 10 - 6 - 1 = 3 is all it may still move (the console shows it: headroomOf): 3.000001 is refused, nothing
    // moved; 3 is paid.
    expect(await headroomOf(db, reseller.id)).toBe(3_000_000n);
    expect(await headroomOf(db, "grp_none")).toBeNull();
    const top = (amountMicros: bigint) =>
      codeOf(moveBalanceAs(db, reach, other.id, { kind: "topup", amountMicros, description: "x" }, BY));
    expect(await top(3_000_001n)).toBe("insufficient_funds");
    expect(await balanceOf(db, reseller.id)).toBe(10_000_000n);
    const adjust = moveBalanceAs(
      db,
      reach,
      other.id,
      { kind: "adjustment", amountMicros: 3_000_001n, description: "y" },
      BY,
    );
    expect(await codeOf(adjust)).toBe("insufficient_funds");
    expect(await top(3_000_000n)).toBe("ok");
    expect(await balanceOf(db, reseller.id)).toBe(7_000_000n);
    // Nothing left: 0, not the 7 of balance the holds are against.
    expect(await headroomOf(db, reseller.id)).toBe(0n);
    // Money coming back to it is never refused.
    const back = moveBalanceAs(db, reach, other.id, { kind: "adjustment", amountMicros: -1n, description: "z" }, BY);
    expect(await codeOf(back)).toBe("ok");
  });
});

describe("a reseller's concurrent top-ups on PostgreSQL (several pools)", () => {
  let drop: () => Promise<void>;
  const pools: DbHandle[] = [];

  beforeAll(async () => {
    const created = await createTestDatabase(process.env[POSTGRES_TEMPLATE_ENV] || undefined);
    drop = created.drop;
    for (let i = 0; i < 3; i++) pools.push(await openDatabase({ url: created.url }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await drop?.();
  });

  it("never lets the reseller pass its credit limit, whatever the interleaving", { timeout: 120_000 }, async () => {
    const db = pools[0].db;
    // 10 of balance and 5 of credit: fifteen top-ups of 1 fit, the other fifteen are refused.
    const reseller = await createAccount(
      db,
      { name: "R", currency: "USD", openingBalanceMicros: 10_000_000n, creditLimitMicros: 5_000_000n },
      BY,
    );
    const children: { id: string }[] = [];
    for (let i = 0; i < 5; i++) children.push(await createAccount(db, { name: `C${i}`, parentId: reseller.id }, BY));
    const reach = await reachOfGroup(db, reseller.id);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        codeOf(
          moveBalanceAs(
            pools[i % pools.length].db,
            reach,
            children[i % children.length].id,
            { kind: "topup", amountMicros: 1_000_000n, description: `t${i}` },
            BY,
          ),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(15);
    expect(outcomes.filter((o) => o === "insufficient_funds")).toHaveLength(15);
    expect(await balanceOf(db, reseller.id)).toBe(-5_000_000n);
    let credited = 0n;
    for (const c of children) credited += await balanceOf(db, c.id);
    expect(credited).toBe(15_000_000n);
  });
});
