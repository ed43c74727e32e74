import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { getBalance } from "@/lib/billing/accounts";
import { createBillingGroup, setBillingGroupDisabledByOperator } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
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
async function attempt(db: Parameters<typeof authorizeCall>[0], groupId: string, maxDurationSeconds = 60) {
  try {
    // A minute: a reseller's own call must not reserve the headroom its subtree is tested against.
    await authorizeCall(db, bound(groupId), { uuid: uuid(), destination: "+4479000", maxDurationSeconds });
    return { code: "granted", detail: "", errors: [] as string[] };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { code: e.code, detail: e.message, errors: (e.errors ?? []).map((x) => x.message) };
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
});
