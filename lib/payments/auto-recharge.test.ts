import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { readAutoRecharge, setAutoRecharge } from "./auto-recharge";
import { runAutoRechargeCharges } from "./auto-recharge-worker";
import type { PaymentProvider } from "./provider";
import { stripeProvider } from "./stripe-provider";
import { startStripeStandIn, type StripeStandIn } from "./testing/stripe-stand-in";

let standIn: StripeStandIn;
let provider: PaymentProvider;

beforeAll(async () => {
  standIn = await startStripeStandIn();
  provider = stripeProvider({
    secretKey: "sk_test_standin",
    webhookSecret: "whsec_unused",
    api: { host: "127.0.0.1", port: Number(new URL(standIn.url).port), protocol: "http" },
  });
});
afterAll(() => standIn.close());

const by = { actor: { type: "user" as const, id: "u_1", label: "owner@example.test" }, address: null };
const FAST = { retryBaseMs: 0, maxAttempts: 3, batch: 1_000 };

async function balance(db: Db, groupId: string): Promise<bigint> {
  const [row] = await queryRows<{ b: string }>(
    db,
    sql`SELECT balance_micros::text AS b FROM billing_groups WHERE id = ${groupId}`,
  );
  return BigInt(row.b);
}

/** Moves the balance as any debit does (the crossing trigger sees every change of balance_micros). */
async function debit(db: Db, groupId: string, micros: bigint): Promise<void> {
  await db.execute(
    sql`UPDATE billing_groups SET balance_micros = balance_micros - ${micros.toString()}::bigint WHERE id = ${groupId}`,
  );
}

async function charges(db: Db, groupId: string) {
  return queryRows<{ crossing: string; status: string; attempts: number; reference: string | null }>(
    db,
    sql`SELECT crossing::text AS crossing, status, attempts, reference FROM auto_recharge_charges
        WHERE billing_group_id = ${groupId} ORDER BY crossing`,
  );
}

/** A group with an opening balance, a customer at the stand-in with a saved card, and a billing member. */
async function groupWithCard(db: Db, name: string, openingMicros: bigint, card = true) {
  const group = await createBillingGroup(db, { name, currency: "EUR", openingBalanceMicros: openingMicros });
  const customer = await provider.ensureCustomer(group, null);
  await db.execute(sql`INSERT INTO payment_customers (billing_group_id, provider, customer_id, payment_method_id)
                       VALUES (${group.id}, 'stripe', ${customer}, ${card ? "pm_card_visa" : null})`);
  const org = `org_${group.id}`;
  await db.execute(
    sql`INSERT INTO organizations (id, name, slug, billing_group_id) VALUES (${org}, ${name}, ${org}, ${group.id})`,
  );
  await db.execute(
    sql`INSERT INTO users (id, name, email) VALUES (${`u_${group.id}`}, 'Bill', ${`bill.${group.id}@example.test`})`,
  );
  await db.execute(
    sql`INSERT INTO members (id, organization_id, user_id, role) VALUES (${`m_${group.id}`}, ${org}, ${`u_${group.id}`}, 'billing')`,
  );
  return group;
}

describeOnEngines("auto-recharge", (handle) => {
  const db = () => handle().db;

  it("queues one charge per crossing, charges it once with two workers, and queues a new one on the next crossing", async () => {
    const group = await groupWithCard(db(), "Rechargeco", 100_000_000n);
    await setAutoRecharge(db(), group.id, { thresholdMicros: 50_000_000n, amountMicros: 30_000_000n }, by);
    await debit(db(), group.id, 20_000_000n); // 80: above, nothing
    expect(await charges(db(), group.id)).toEqual([]);
    await debit(db(), group.id, 40_000_000n); // 40: below, one charge
    await debit(db(), group.id, 5_000_000n); // 35: still below, no other
    expect((await charges(db(), group.id)).map((c) => c.status)).toEqual(["pending"]);

    const before = standIn.requests.filter((r) => r === "POST /v1/payment_intents").length;
    const rounds = await Promise.all([
      runAutoRechargeCharges(db(), provider, FAST),
      runAutoRechargeCharges(db(), provider, FAST),
    ]);
    expect(rounds.reduce((n, r) => n + r.succeeded, 0)).toBe(1);
    expect(standIn.requests.filter((r) => r === "POST /v1/payment_intents").length - before).toBe(1);
    expect(await balance(db(), group.id)).toBe(65_000_000n);
    const [first] = await charges(db(), group.id);
    expect(first).toMatchObject({ crossing: "1", status: "succeeded" });
    expect(standIn.paymentIntents.get(first.reference!)).toMatchObject({
      amount: 3000,
      currency: "eur",
      off_session: true,
    });
    const [receipt] = await queryRows<{ description: string }>(
      db(),
      sql`SELECT description FROM ledger_entries WHERE billing_group_id = ${group.id} AND kind = 'topup'`,
    );
    expect(receipt.description).toBe(`Auto-recharge (stripe ${first.reference})`);
    // A later round finds nothing to charge.
    expect(await runAutoRechargeCharges(db(), provider, FAST)).toEqual({ succeeded: 0, retried: 0, failed: 0 });

    // Back above the threshold (65), then below again: a second crossing, a second charge.
    await debit(db(), group.id, 20_000_000n);
    await runAutoRechargeCharges(db(), provider, FAST);
    expect((await charges(db(), group.id)).map((c) => [c.crossing, c.status])).toEqual([
      ["1", "succeeded"],
      ["2", "succeeded"],
    ]);
    expect(await balance(db(), group.id)).toBe(75_000_000n);
  });

  it("retries a declined card with backoff, then fails for good: webhook event, mail, audit, no credit", async () => {
    const group = await groupWithCard(db(), "Declined", 60_000_000n);
    await db().execute(
      sql`INSERT INTO webhook_endpoints (id, url, billing_group_id) VALUES (${`we_${group.id}`}, 'https://hooks.example.test/x', ${group.id})`,
    );
    await setAutoRecharge(db(), group.id, { thresholdMicros: 50_000_000n, amountMicros: 20_000_000n }, by);
    await debit(db(), group.id, 15_000_000n);
    standIn.failCharges = Infinity;
    try {
      expect(await runAutoRechargeCharges(db(), provider, { ...FAST, retryBaseMs: 60_000 })).toMatchObject({
        retried: 1,
      });
      // Backed off: not due yet.
      expect(await runAutoRechargeCharges(db(), provider, FAST)).toEqual({ succeeded: 0, retried: 0, failed: 0 });
      const [next] = await queryRows<{ wait: number }>(
        db(),
        sql`SELECT extract(epoch FROM next_attempt_at - now())::float AS wait FROM auto_recharge_charges WHERE billing_group_id = ${group.id}`,
      );
      expect(next.wait).toBeGreaterThan(50);
      await db().execute(
        sql`UPDATE auto_recharge_charges SET next_attempt_at = now() WHERE billing_group_id = ${group.id}`,
      );
      expect(await runAutoRechargeCharges(db(), provider, FAST)).toMatchObject({ retried: 1 });
      expect(await runAutoRechargeCharges(db(), provider, FAST)).toMatchObject({ failed: 1 });
    } finally {
      standIn.failCharges = 0;
    }
    expect(await charges(db(), group.id)).toMatchObject([{ status: "failed", attempts: 3 }]);
    expect(await balance(db(), group.id)).toBe(45_000_000n);
    const events = await queryRows<{ type: string; body: string }>(
      db(),
      sql`SELECT type, body FROM webhook_events WHERE billing_group_id = ${group.id} AND type = 'auto_recharge.failed'`,
    );
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].body).data).toMatchObject({ billingGroupId: group.id, threshold: 50, balance: 45 });
    const [delivery] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE e.billing_group_id = ${group.id} AND e.type = 'auto_recharge.failed'`,
    );
    expect(delivery.n).toBe("1");
    const mails = await queryRows<{ recipient: string; subject: string }>(
      db(),
      sql`SELECT recipient, subject FROM mail_outbox WHERE key LIKE 'auto-recharge-failed:%' AND recipient = ${`bill.${group.id}@example.test`}`,
    );
    expect(mails).toEqual([
      { recipient: `bill.${group.id}@example.test`, subject: "Auto-recharge of 20.00 EUR failed" },
    ]);
    const state = await readAutoRecharge(db(), group.id);
    expect(state?.lastCharge).toMatchObject({ status: "failed" });
  });

  it("fails at once without a saved card", async () => {
    const group = await groupWithCard(db(), "No card", 10_000_000n, false);
    await setAutoRecharge(db(), group.id, { thresholdMicros: 5_000_000n, amountMicros: 10_000_000n }, by);
    await debit(db(), group.id, 6_000_000n);
    expect(await runAutoRechargeCharges(db(), provider, FAST)).toMatchObject({ failed: 1 });
    expect(await charges(db(), group.id)).toMatchObject([{ status: "failed", attempts: 1 }]);
  });

  it("audits a setting and refuses an amount out of bounds", async () => {
    const group = await createBillingGroup(db(), { name: "Settings", currency: "EUR" });
    const refused = await setAutoRecharge(db(), group.id, { thresholdMicros: 0n, amountMicros: 1_000n }, by).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).errors?.[0].param).toBe("amount");
    await setAutoRecharge(db(), group.id, { thresholdMicros: 10_000_000n, amountMicros: 25_000_000n }, by);
    await setAutoRecharge(db(), group.id, null, by);
    const audit = await queryRows<{ after: unknown }>(
      db(),
      sql`SELECT after FROM audit_events WHERE billing_group_id = ${group.id} AND action = 'auto_recharge.updated' ORDER BY id`,
    );
    expect(audit.map((a) => a.after)).toEqual([{ threshold: "10", amount: "25", currency: "EUR" }, { enabled: false }]);
    expect((await readAutoRecharge(db(), group.id))?.setting).toBeNull();
  });
});
