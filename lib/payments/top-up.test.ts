import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { setAutoRecharge } from "./auto-recharge";
import { fromMinorUnits, toMinorUnits, type PaymentProvider } from "./provider";
import { receivePaymentWebhook } from "./receive-webhook";
import { startTopUp } from "./start-top-up";
import { stripeProvider } from "./stripe-provider";
import { startStripeStandIn, type StripeStandIn } from "./testing/stripe-stand-in";

const SECRET = "whsec_test_secret";
let standIn: StripeStandIn;
let provider: PaymentProvider;

beforeAll(async () => {
  standIn = await startStripeStandIn();
  const port = Number(new URL(standIn.url).port);
  provider = stripeProvider({
    secretKey: "sk_test_standin",
    webhookSecret: SECRET,
    api: { host: "127.0.0.1", port, protocol: "http" },
  });
});
afterAll(() => standIn.close());

const actor = { type: "user" as const, id: "u_1", label: "billing@example.test" };

async function balance(db: Db, groupId: string): Promise<bigint> {
  const [row] = await queryRows<{ b: string }>(
    db,
    sql`SELECT balance_micros::text AS b FROM billing_groups WHERE id = ${groupId}`,
  );
  return BigInt(row.b);
}

async function ledgerSum(db: Db, groupId: string): Promise<bigint> {
  const [row] = await queryRows<{ s: string }>(
    db,
    sql`SELECT coalesce(sum(amount_micros), 0)::text AS s FROM ledger_entries WHERE billing_group_id = ${groupId}`,
  );
  return BigInt(row.s);
}

/** Starts a top-up, "pays" it at the stand-in and answers the signed completed event. */
async function paidTopUp(db: Db, groupId: string, amountMicros: bigint) {
  const { url } = await startTopUp(db, provider, {
    billingGroupId: groupId,
    amountMicros,
    actor,
    address: "127.0.0.1",
    origin: "http://portal.test",
  });
  const sessionId = url.split("/").pop()!;
  const payload = JSON.stringify(standIn.pay(sessionId));
  return { sessionId, payload, signature: standIn.sign(payload, SECRET) };
}

it("converts micro-units to the currency's minor units and back, exactly", () => {
  expect(toMinorUnits(25_500_000n, "EUR")).toBe(2550n);
  expect(toMinorUnits(1_000_000_000n, "JPY")).toBe(1000n);
  expect(() => toMinorUnits(1_500_000n, "JPY")).toThrow(RangeError);
  expect(fromMinorUnits(2550n, "EUR")).toBe(25_500_000n);
});

describeOnEngines("online top-up", (handle) => {
  const db = () => handle().db;

  it("opens a Checkout Session for the group in its currency that saves the card, and credits nothing yet", async () => {
    const group = await createBillingGroup(db(), { name: "Topco", currency: "EUR", openingBalanceMicros: 1_000_000n });
    const { url } = await startTopUp(db(), provider, {
      billingGroupId: group.id,
      amountMicros: 25_000_000n,
      actor,
      address: null,
      origin: "http://portal.test/",
    });
    expect(url.startsWith(`${standIn.url}/checkout/cs_test_`)).toBe(true);
    const session = standIn.sessions.get(url.split("/").pop()!)!;
    expect(session).toMatchObject({
      mode: "payment",
      client_reference_id: group.id,
      amount_total: 2500,
      currency: "eur",
      setup_future_usage: "off_session",
      success_url: "http://portal.test/?topup=success",
      cancel_url: "http://portal.test/?topup=cancelled",
      metadata: { billingGroupId: group.id, purpose: "topup" },
    });
    expect(standIn.customers.has(String(session.customer))).toBe(true);
    expect(await balance(db(), group.id)).toBe(1_000_000n);
    // The customer is reused by the next top-up.
    const again = await startTopUp(db(), provider, {
      billingGroupId: group.id,
      amountMicros: 10_000_000n,
      actor,
      address: null,
      origin: "http://portal.test",
    });
    expect(standIn.sessions.get(again.url.split("/").pop()!)!.customer).toBe(session.customer);
    const [audit] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM audit_events WHERE billing_group_id = ${group.id} AND action = 'payment.checkout_started'`,
    );
    expect(audit.n).toBe("2");
  });

  it("refuses an amount outside the bounds or finer than the currency, naming the field", async () => {
    const group = await createBillingGroup(db(), { name: "Bounds", currency: "JPY" });
    for (const amountMicros of [1_000_000n, 20_000_000_000n, 1_000_500_000n]) {
      const refused = await startTopUp(db(), provider, {
        billingGroupId: group.id,
        amountMicros,
        actor,
        address: null,
        origin: "http://portal.test",
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).status).toBe(422);
      expect((refused as ApiError).errors?.[0].param).toBe("amount");
    }
  });

  it("refuses a card top-up and auto-recharge for a reseller's customer (its reseller bills it), opening nothing", async () => {
    const reseller = await createBillingGroup(db(), { name: "North Resale", currency: "EUR" });
    await db().execute(
      sql`UPDATE billing_groups SET billing_name = 'North Resale Trading Ltd' WHERE id = ${reseller.id}`,
    );
    const customer = await createBillingGroup(db(), { name: "Resold", currency: "EUR", parentId: reseller.id });
    const sessions = standIn.sessions.size;
    const refused = await startTopUp(db(), provider, {
      billingGroupId: customer.id,
      amountMicros: 25_000_000n,
      actor,
      address: null,
      origin: "http://portal.test",
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(409);
    expect((refused as ApiError).detail).toContain("North Resale Trading Ltd");
    expect(standIn.sessions.size).toBe(sessions);
    const by = { actor, address: null };
    const recharge = await setAutoRecharge(
      db(),
      customer.id,
      { thresholdMicros: 5_000_000n, amountMicros: 20_000_000n },
      by,
    ).catch((e: unknown) => e);
    expect((recharge as ApiError).status).toBe(409);
    // Turning it off stays possible; the reseller itself pays the operator by card as before.
    await expect(setAutoRecharge(db(), customer.id, null, by)).resolves.toBeNull();
    const [rows] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM auto_recharge_settings WHERE billing_group_id = ${customer.id}`,
    );
    expect(rows.n).toBe("0");
    const { url } = await startTopUp(db(), provider, {
      billingGroupId: reseller.id,
      amountMicros: 25_000_000n,
      actor,
      address: null,
      origin: "http://portal.test",
    });
    expect(url.startsWith(`${standIn.url}/checkout/cs_test_`)).toBe(true);
  });

  it("credits the verified session's amount once, with a ledger receipt, an audit event and the saved card", async () => {
    const group = await createBillingGroup(db(), { name: "Payco", currency: "EUR", openingBalanceMicros: 2_000_000n });
    const { sessionId, payload, signature } = await paidTopUp(db(), group.id, 42_500_000n);
    const outcome = await receivePaymentWebhook(db(), provider, payload, signature);
    expect(outcome).toMatchObject({ received: true, action: "credited" });
    expect(await balance(db(), group.id)).toBe(44_500_000n);
    expect(await ledgerSum(db(), group.id)).toBe(44_500_000n);
    const [entry] = await queryRows<{ kind: string; amount: string; description: string }>(
      db(),
      sql`SELECT kind, amount_micros::text AS amount, description FROM ledger_entries
          WHERE billing_group_id = ${group.id} AND kind = 'topup'`,
    );
    expect(entry).toEqual({ kind: "topup", amount: "42500000", description: `Online top-up (stripe ${sessionId})` });
    const [audit] = await queryRows<{ after: { amount: string; reference: string } }>(
      db(),
      sql`SELECT after FROM audit_events WHERE billing_group_id = ${group.id} AND action = 'payment.received'`,
    );
    expect(audit.after).toMatchObject({ amount: "42.5", reference: sessionId });
    const [card] = await queryRows<{ payment_method_id: string | null }>(
      db(),
      sql`SELECT payment_method_id FROM payment_customers WHERE billing_group_id = ${group.id}`,
    );
    expect(card.payment_method_id).toMatch(/^pm_/);

    // Stripe retries the same event: acknowledged, nothing more.
    expect(await receivePaymentWebhook(db(), provider, payload, signature)).toEqual({
      received: true,
      action: "ignored",
      reason: "duplicate",
    });
    // Another event about the same session: still once.
    const other = JSON.stringify(standIn.completedEvent(sessionId));
    await receivePaymentWebhook(db(), provider, other, standIn.sign(other, SECRET));
    expect(await balance(db(), group.id)).toBe(44_500_000n);
    const [payments] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM payments WHERE billing_group_id = ${group.id}`,
    );
    expect(payments.n).toBe("1");
  });

  it("credits once when two deliveries of the same event arrive at the same time", async () => {
    const group = await createBillingGroup(db(), { name: "Twice", currency: "USD" });
    const { payload, signature } = await paidTopUp(db(), group.id, 15_000_000n);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => receivePaymentWebhook(db(), provider, payload, signature)),
    );
    expect(outcomes.filter((o) => o.action === "credited")).toHaveLength(1);
    expect(await balance(db(), group.id)).toBe(15_000_000n);
    expect(await ledgerSum(db(), group.id)).toBe(15_000_000n);
  });

  it("acknowledges a verified event with impossible content as refused, crediting nothing", async () => {
    const group = await createBillingGroup(db(), { name: "Odd", currency: "EUR", openingBalanceMicros: 1_000_000n });
    const { payload } = await paidTopUp(db(), group.id, 10_000_000n);
    const event = JSON.parse(payload) as { id: string; data: { object: Record<string, unknown> } };
    const variant = (i: number, session: Record<string, unknown> | null) =>
      JSON.stringify({
        ...event,
        id: `${event.id}_${i}`,
        ...(session === null ? { data: undefined } : { data: { object: { ...event.data.object, ...session } } }),
      });
    const payloads = [
      variant(0, { amount_total: -500 }),
      variant(1, { amount_total: 0 }),
      variant(2, { amount_total: 12.5 }),
      variant(3, { amount_total: 1e22 }),
      variant(4, { amount_total: Number.MAX_SAFE_INTEGER }),
      variant(5, { client_reference_id: "\u0000" }),
      variant(6, { id: "cs_\u0000" }),
      variant(7, { currency: "e\u0000r" }),
      variant(8, null),
    ];
    for (const [i, body] of payloads.entries()) {
      const outcome = await receivePaymentWebhook(db(), provider, body, standIn.sign(body, SECRET));
      expect(outcome, body).toMatchObject({ received: true, action: "refused", eventId: `${event.id}_${i}` });
    }
    const notAnEvent = await receivePaymentWebhook(db(), provider, "null", standIn.sign("null", SECRET));
    expect(notAnEvent).toMatchObject({ received: true, action: "refused" });
    expect(await balance(db(), group.id)).toBe(1_000_000n);
    // A balance at its bound takes no payment: refused, and the payments row rolled back with it.
    await db().execute(sql`UPDATE billing_groups SET balance_micros = 1000000000000000000 WHERE id = ${group.id}`);
    expect(await receivePaymentWebhook(db(), provider, payload, standIn.sign(payload, SECRET))).toMatchObject({
      action: "refused",
    });
    const [payments] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM payments WHERE billing_group_id = ${group.id}`,
    );
    expect(payments.n).toBe("0");
  });

  it("refuses a bad signature or a body changed after signing with a 400, changing nothing", async () => {
    const group = await createBillingGroup(db(), { name: "Forged", currency: "EUR" });
    const { payload, signature } = await paidTopUp(db(), group.id, 10_000_000n);
    const forged = payload.replace('"amount_total":1000', '"amount_total":9999900');
    expect(forged).not.toBe(payload);
    for (const [body, header] of [
      [forged, signature],
      [payload, standIn.sign(payload, "whsec_someone_else")],
      [payload, null],
    ] as const) {
      const refused = await receivePaymentWebhook(db(), provider, body, header).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).status).toBe(400);
    }
    expect(await balance(db(), group.id)).toBe(0n);
    const [payments] = await queryRows<{ n: string }>(
      db(),
      sql`SELECT count(*)::text AS n FROM payments WHERE billing_group_id = ${group.id}`,
    );
    expect(payments.n).toBe("0");
  });
});

it("refuses a bad signature from a provider made by another bundle (another copy of the error class)", async () => {
  class InvalidSignatureError extends Error {
    override readonly name = "InvalidSignatureError";
  }
  const foreign = {
    ...provider,
    verifyWebhook: () => {
      throw new InvalidSignatureError("No stripe-signature header value was provided.");
    },
  };
  const refused = await receivePaymentWebhook(null as never, foreign, "{}", null).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(400);
});
