import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { getBalance } from "@/lib/billing/accounts";
import { createBillingGroup, setBillingGroupDisabledByOperator } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { activeReservedMicros, authorizeCall } from "./authorize";

const bound = (billingGroupId: string): Principal => ({
  keyId: "key_test",
  scopes: new Set(["cdrs:write"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});

let seq = 0;
const uuid = () => `tier-${process.pid}-${++seq}`;

/** The call's outcome: "granted", or the refusal's code and what it names. */
async function attempt(db: Parameters<typeof authorizeCall>[0], groupId: string, maxDurationSeconds = 60, id = uuid()) {
  try {
    // A minute: a reseller's own call must not reserve the headroom its subtree is tested against.
    const granted = await authorizeCall(db, bound(groupId), { uuid: id, destination: "+4479000", maxDurationSeconds });
    return { code: "granted", seconds: granted.authorization.maxDurationSeconds, detail: "", errors: [] as string[] };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { code: e.code, seconds: 0, detail: e.message, errors: (e.errors ?? []).map((x) => x.message) };
  }
}

describeOnEngines("authorizations in a reseller tree", (handle) => {
  async function account(parentId: string | null) {
    const g = await createBillingGroup(handle().db, {
      name: "Tier",
      currency: "USD",
      openingBalanceMicros: 10_000_000n,
      creditLimitMicros: 1_000_000n,
      parentId,
    });
    await importSellRates(handle().db, g.id, parseRateCsv("prefix,rate,increment,connectFee\n44,0.60,1/1,\n"));
    return g.id;
  }

  /** reseller > (customer, sub-reseller > sub-customer); another reseller > its customer. */
  async function tree() {
    const reseller = await account(null);
    const customer = await account(reseller);
    const sub = await account(reseller);
    const subCustomer = await account(sub);
    const other = await account(null);
    const otherCustomer = await account(other);
    return { reseller, customer, sub, subCustomer, other, otherCustomer };
  }

  it("a disabled reseller stops its subtree's calls, naming itself; a sibling subtree is unaffected; re-enabled admits again", async () => {
    const db = handle().db;
    const t = await tree();
    await setBillingGroupDisabledByOperator(db, t.reseller, true);

    for (const id of [t.customer, t.sub, t.subCustomer]) {
      const r = await attempt(db, id);
      expect(r.code).toBe("insufficient_balance");
      expect(r.detail).toContain(`The reseller account ${t.reseller} that this account buys through is disabled`);
      expect(r.errors).toEqual([
        `the reseller account ${t.reseller} that this account buys through is disabled by the operator`,
      ]);
      expect(await activeReservedMicros(db, id)).toBe(0n);
    }
    expect((await attempt(db, t.otherCustomer)).code).toBe("granted");
    expect((await attempt(db, t.other)).code).toBe("granted");

    // The customer's balance says its provider is on hold (a yes or no, no figures); a root account has no such field.
    expect(await getBalance(db, bound(t.subCustomer))).toMatchObject({ disabled: false, providerOnHold: true });
    expect(await getBalance(db, bound(t.otherCustomer))).toMatchObject({ providerOnHold: false });
    expect(await getBalance(db, bound(t.reseller))).not.toHaveProperty("providerOnHold");

    await setBillingGroupDisabledByOperator(db, t.reseller, false);
    for (const id of [t.customer, t.sub, t.subCustomer]) expect((await attempt(db, id)).code).toBe("granted");
    expect(await getBalance(db, bound(t.subCustomer))).toMatchObject({ providerOnHold: false });
  });

  it("a reseller at its credit limit stops its subtree, nearest blocking tier named first", async () => {
    const db = handle().db;
    const t = await tree();
    // Balance driven to minus the credit limit (the generated `disabled` turns on there), as ingest's debits would.
    await queryRows(db, sql`UPDATE billing_groups SET balance_micros = -credit_limit_micros WHERE id = ${t.reseller}`);

    const r = await attempt(db, t.subCustomer);
    expect(r.code).toBe("insufficient_balance");
    expect(r.errors).toEqual([
      `the reseller account ${t.reseller} that this account buys through is at its credit limit`,
    ]);
    expect((await attempt(db, t.customer)).errors[0]).toContain("is at its credit limit");

    // The sub-reseller disabled too: both tiers named, nearest first.
    await setBillingGroupDisabledByOperator(db, t.sub, true);
    expect((await attempt(db, t.subCustomer)).errors).toEqual([
      `the reseller account ${t.sub} that this account buys through is disabled by the operator`,
      `the reseller account ${t.reseller} that this account buys through is at its credit limit`,
    ]);
    expect((await attempt(db, t.otherCustomer)).code).toBe("granted");

    await setBillingGroupDisabledByOperator(db, t.sub, false);
    await queryRows(db, sql`UPDATE billing_groups SET balance_micros = 1000000 WHERE id = ${t.reseller}`);
    expect((await attempt(db, t.subCustomer)).code).toBe("granted");
  });

  it("a reseller whose own open reservations use its headroom stops its subtree", async () => {
    const db = handle().db;
    const t = await tree();
    // 0.60 available: the reseller's own call is granted 59 s and reserves 60 s at 0.01/s, all of it.
    await queryRows(
      db,
      sql`UPDATE billing_groups SET balance_micros = 0, credit_limit_micros = 600000 WHERE id = ${t.reseller}`,
    );
    expect((await attempt(db, t.reseller, 3600)).code).toBe("granted");
    expect((await attempt(db, t.customer)).errors).toEqual([
      `the reseller account ${t.reseller} that this account buys through has no headroom left (balance + credit limit, less its open reservations)`,
    ]);
  });

  /** An account of its own figures: `rate` per minute (1/1 increments) is what it pays its parent for a call to 44. */
  async function priced(
    parentId: string | null,
    rate: string,
    openingBalanceMicros: bigint,
    creditLimitMicros: bigint,
  ) {
    const g = await createBillingGroup(handle().db, {
      name: "Tier",
      currency: "USD",
      openingBalanceMicros,
      creditLimitMicros,
      parentId,
    });
    await importSellRates(handle().db, g.id, parseRateCsv(`prefix,rate,increment,connectFee\n44,${rate},1/1,\n`));
    return g.id;
  }

  /** Each group's balance and the sum of its ledger: they must agree (nothing moved outside the ledger). */
  async function books(ids: string[]) {
    const rows = await queryRows<{ id: string; balance: string; ledger: string }>(
      handle().db,
      sql`SELECT g.id, g.balance_micros::text AS balance,
            (SELECT coalesce(sum(l.amount_micros), 0) FROM ledger_entries l WHERE l.billing_group_id = g.id)::text AS ledger
          FROM billing_groups g WHERE g.id IN (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
    return new Map(rows.map((r) => [r.id, { balance: BigInt(r.balance), ledger: BigInt(r.ledger) }]));
  }

  it("holds the call at every tier at that tier's own deck, grants what every tier covers, and settling or expiry frees every hold", async () => {
    const db = handle().db;
    // reseller (pays 0.30/min, headroom 0.305: 61 s) > sub-reseller (pays 0.45/min, ample) > customer (0.60/min, 11.00).
    const reseller = await priced(null, "0.30", 0n, 305_000n);
    const sub = await priced(reseller, "0.45", 100_000_000n, 0n);
    const customer = await priced(sub, "0.60", 10_000_000n, 1_000_000n);

    const first = uuid();
    // The customer's own balance would grant 1 099 s; the reseller's headroom covers 61 s at its deck.
    expect(await attempt(db, customer, 3600, first)).toMatchObject({ code: "granted", seconds: 60 });
    expect(await activeReservedMicros(db, customer)).toBe(610_000n);
    const holds = await queryRows<{ tier_group_id: string; depth: number; reserved: string }>(
      db,
      sql`SELECT tier_group_id, depth, reserved_micros::text AS reserved FROM authorization_tier_holds
          WHERE billing_group_id = ${customer} AND uuid = ${first} ORDER BY depth`,
    );
    expect(holds.map((h) => [h.tier_group_id, Number(h.depth), h.reserved])).toEqual([
      [sub, 1, "457500"],
      [reseller, 2, "305000"],
    ]);

    // The reseller's headroom is held: its subtree is stopped, and so is its own next call.
    expect((await attempt(db, customer)).errors).toEqual([
      `the reseller account ${reseller} that this account buys through has no headroom left (balance + credit limit, less its open reservations)`,
    ]);
    expect((await attempt(db, reseller)).code).toBe("insufficient_balance");
    expect(await getBalance(db, bound(customer))).toMatchObject({ providerOnHold: true });

    // The CDR (30 s answered) settles the authorization: every tier is debited its charge and its hold freed.
    const start = new Date(Date.now() - 60_000);
    const cdr = nativeCdrSchema.parse({
      uuid: first,
      billingGroupId: customer,
      direction: "outbound",
      from: "1",
      to: "4479000",
      startTime: start.toISOString(),
      answerTime: start.toISOString(),
      endTime: new Date(start.getTime() + 30_000).toISOString(),
    });
    await ingestCdrs(db, [cdr], { restrictToBillingGroupId: customer });
    const [left] = await queryRows<{ n: number | string }>(
      db,
      sql`SELECT count(*) AS n FROM authorization_tier_holds WHERE uuid = ${first}`,
    );
    expect(Number(left.n)).toBe(0);
    const after = await books([reseller, sub, customer]);
    for (const b of after.values()) expect(b.balance).toBe(b.ledger);
    expect([after.get(customer)!.balance, after.get(sub)!.balance, after.get(reseller)!.balance]).toEqual([
      9_700_000n,
      99_775_000n,
      -150_000n,
    ]);
    expect(await getBalance(db, bound(customer))).toMatchObject({ providerOnHold: false });

    // 0.305 - 0.15 = 0.155 left at the reseller: 31 s at its deck, so 30 s granted.
    const second = uuid();
    expect(await attempt(db, customer, 3600, second)).toMatchObject({ code: "granted", seconds: 30 });
    expect((await attempt(db, customer)).code).toBe("insufficient_balance");
    // Expired, it holds nothing any more at any tier.
    // Expiry as time would bring it: the authorization's expires_at and its holds' copy pass together.
    await db.execute(sql`UPDATE authorizations SET expires_at = now() - interval '1 second' WHERE uuid = ${second}`);
    await db.execute(
      sql`UPDATE authorization_tier_holds SET expires_at = now() - interval '1 second' WHERE uuid = ${second}`,
    );
    expect(await attempt(db, customer, 3600)).toMatchObject({ code: "granted", seconds: 30 });
  });

  it("refuses, naming the tier, when a tier's headroom is positive but short of one second at its deck", async () => {
    const db = handle().db;
    const reseller = await priced(null, "0.30", 0n, 9_999n); // 0.009999: less than 2 s at 0.005/s
    const customer = await priced(reseller, "0.60", 10_000_000n, 0n);
    expect(await attempt(db, customer)).toMatchObject({
      code: "insufficient_balance",
      errors: [
        `the reseller account ${reseller} that this account buys through has not enough headroom left for one second of this call`,
      ],
    });
    expect(await activeReservedMicros(db, customer)).toBe(0n);
  });

  it("holds nothing at a tier whose deck has no rate for the call (ingest does not debit it)", async () => {
    const db = handle().db;
    const reseller = await createBillingGroup(db, { name: "Unpriced", currency: "USD", openingBalanceMicros: 1n });
    await importSellRates(db, reseller.id, parseRateCsv("prefix,rate,increment,connectFee\n33,0.30,1/1,\n"));
    const customer = await priced(reseller.id, "0.60", 10_000_000n, 0n);
    const id = uuid();
    expect(await attempt(db, customer, 3600, id)).toMatchObject({ code: "granted", seconds: 999 });
    const [n] = await queryRows<{ n: number | string }>(
      db,
      sql`SELECT count(*) AS n FROM authorization_tier_holds WHERE billing_group_id = ${customer} AND uuid = ${id}`,
    );
    expect(Number(n.n)).toBe(0);
  });
});
