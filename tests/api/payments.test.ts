import { randomUUID } from "node:crypto";
import fs from "node:fs";
import Stripe from "stripe";
import { describe, expect, inject, it } from "vitest";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import type { Problem } from "@/lib/errors/api-error";
import { api, apiServers, type ApiServer } from "./helpers";

// The Stripe webhook over real HTTP (POST /payments/stripe/webhook, raw body, signature checked by the SDK) and the
// staff's auto-recharge setting, on both engines. The servers' SDK points at a local stand-in (global-setup.ts).

const secret = () => inject("stripeWebhookSecret");

async function newAccount(server: ApiServer, currency = "EUR"): Promise<AccountDetail> {
  const res = await api<AccountDetail>(server, "/v1/accounts", {
    key: "platformProvision",
    body: { name: `Payer ${randomUUID().slice(0, 8)}`, currency },
    headers: { "idempotency-key": randomUUID() },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const balanceOf = async (server: ApiServer, id: string) =>
  (await api<AccountDetail>(server, `/v1/accounts/${id}`, { key: "platformRead" })).body.balance;

/** A checkout.session.completed event as Stripe sends it, for `group`. */
function completedEvent(group: string, amountTotal: number, currency: string): string {
  return JSON.stringify({
    id: `evt_${randomUUID().replaceAll("-", "")}`,
    object: "event",
    type: "checkout.session.completed",
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `cs_test_${randomUUID().replaceAll("-", "")}`,
        object: "checkout.session",
        mode: "payment",
        client_reference_id: group,
        amount_total: amountTotal,
        currency,
        payment_status: "paid",
        status: "complete",
        customer: null,
        payment_intent: null,
      },
    },
  });
}

const post = (server: ApiServer, payload: string, signature?: string) =>
  api<unknown>(server, "/payments/stripe/webhook", {
    method: "POST",
    body: payload,
    headers: signature === undefined ? {} : { "stripe-signature": signature },
  });

const sign = (payload: string, key = secret()) => Stripe.webhooks.generateTestHeaderString({ payload, secret: key });

describe.each(apiServers())("payments on $engine", (server) => {
  it("refuses an unsigned, wrongly signed or altered event with 400 and credits nothing", async () => {
    const account = await newAccount(server);
    const payload = completedEvent(account.id, 1234, "eur");
    const altered = payload.replace('"amount_total":1234', '"amount_total":999999');
    for (const [body, signature] of [
      [payload, undefined],
      [payload, sign(payload, "whsec_not_ours")],
      [altered, sign(payload)],
    ] as const) {
      const res = await post(server, body, signature);
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect((res.body as Problem).errors?.[0].param).toBe("stripe-signature");
    }
    expect(await balanceOf(server, account.id)).toBe(0);
  });

  it("credits the signed session's amount once, whatever the retries and concurrent deliveries", async () => {
    const account = await newAccount(server);
    const payload = completedEvent(account.id, 1234, "eur");
    const first = await post(server, payload, sign(payload));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ received: true, action: "credited" });
    const retried = await post(server, payload, sign(payload));
    expect(retried.body).toEqual({ received: true, action: "ignored", reason: "duplicate" });
    expect(await balanceOf(server, account.id)).toBe(12.34);

    const other = completedEvent(account.id, 500, "eur");
    const deliveries = await Promise.all(Array.from({ length: 4 }, () => post(server, other, sign(other))));
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200]);
    expect(deliveries.filter((d) => (d.body as { action: string }).action === "credited")).toHaveLength(1);
    expect(await balanceOf(server, account.id)).toBe(17.34);
  });

  it("acknowledges a signed event with impossible content (200, refused), credits nothing and logs it", async () => {
    const account = await newAccount(server);
    const withSession = (patch: Record<string, unknown>) => {
      const event = JSON.parse(completedEvent(account.id, 1234, "eur")) as { data: { object: object } };
      event.data.object = { ...event.data.object, ...patch };
      return JSON.stringify(event);
    };
    const noData = JSON.stringify({
      id: `evt_${randomUUID().replaceAll("-", "")}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
    });
    const payloads = [
      withSession({ amount_total: -500 }),
      withSession({ amount_total: 0 }),
      withSession({ amount_total: 12.5 }),
      withSession({ amount_total: 1e22 }),
      withSession({ client_reference_id: "\u0000" }),
      withSession({ id: "cs_\u0000" }),
      noData,
    ];
    for (const payload of payloads) {
      const res = await post(server, payload, sign(payload));
      // Stripe retries anything but a 2xx for days: an event that can never be credited is answered once.
      expect({ status: res.status, text: res.text, payload: payload.slice(0, 400) }).toMatchObject({ status: 200 });
      expect(res.body).toMatchObject({ received: true, action: "refused" });
    }
    expect(await balanceOf(server, account.id)).toBe(0);
    const log = fs.readFileSync(server.logFile, "utf8");
    for (const payload of payloads) {
      const eventId = (JSON.parse(payload) as { id: string }).id;
      const line = log.split("\n").find((l) => l.includes(eventId));
      expect(line, `log line for ${eventId}`).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ event: "payment webhook event refused", eventId });
    }
  });

  it("lets staff set auto-recharge (audited), not a key bound to a group, and names a bad amount", async () => {
    const account = await newAccount(server);
    const path = `/v1/accounts/${account.id}/auto-recharge`;
    const set = await api(server, path, {
      key: "platformProvision",
      method: "PUT",
      body: { enabled: true, threshold: "10", amount: "25.00" },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({
      accountId: account.id,
      enabled: true,
      threshold: 10,
      amount: 25,
      currency: "EUR",
      cardSaved: false,
    });
    const bound = await api(server, path, { key: "boundProvision", method: "PUT", body: { enabled: false } });
    expect(bound.status).toBe(403);
    const tooSmall = await api(server, path, {
      key: "platformProvision",
      method: "PUT",
      body: { enabled: true, threshold: "10", amount: "1" },
    });
    expect(tooSmall.status).toBe(422);
    expect((tooSmall.body as Problem).errors?.map((e) => e.param)).toEqual(["amount"]);
    const off = await api(server, path, { key: "platformProvision", method: "PUT", body: { enabled: false } });
    expect(off.body).toMatchObject({ enabled: false, threshold: null, amount: null });
  });
});
