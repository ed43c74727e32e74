import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

// A local stand-in of the few endpoints of Stripe's HTTP API the payment provider calls (customers, Checkout
// Sessions, PaymentIntents confirmed off-session), for tests: the SDK is pointed at it with host/port/protocol
// (STRIPE_API_BASE). It keeps its objects in memory, answers form-encoded requests as Stripe does (JSON bodies, error
// objects), replays an Idempotency-Key, serves a tiny "checkout page" whose button pays the session, and builds the
// `checkout.session.completed` event a test then signs with the SDK's own generateTestHeaderString and posts.

type Obj = Record<string, unknown>;

export interface StripeStandIn {
  /** http://127.0.0.1:<port> */
  url: string;
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  paymentIntents: Map<string, Obj>;
  /** Every request seen, in order: "POST /v1/checkout/sessions". */
  requests: string[];
  /**
   * Where the hosted page's "Pay" posts the signed completed event before sending the browser back, as Stripe does
   * (e2e). Unset: the test posts it.
   */
  webhook: { url: string; secret: string } | null;
  /** The events posted to `webhook`, with the status the app answered. */
  deliveries: { eventId: string; status: number }[];
  /** Off-session charges fail (card_declined) while this is > 0; each failure decrements it. Infinity: always. */
  failCharges: number;
  /** Marks a session paid (what the hosted page's button does) and answers its completed event. */
  pay(sessionId: string): Obj;
  /** The event Stripe would send for a completed session: { id: evt_..., type, data: { object: session } }. */
  completedEvent(sessionId: string): Obj;
  /** Signs a payload as Stripe does (stripe.webhooks.generateTestHeaderString). */
  sign(payload: string, secret: string): string;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Parses Stripe's form encoding (a[b][0][c]=v) into nested objects and arrays. */
function parseForm(body: string): Obj {
  const out: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node: Obj = out;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Obj;
    });
  }
  return out;
}

/** Posts a signed event to a webhook URL; answers the HTTP status (0 when it could not be posted). */
async function deliver(hook: { url: string; secret: string }, event: Obj): Promise<number> {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: hook.secret });
  try {
    const response = await fetch(hook.url, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    return response.status;
  } catch {
    return 0;
  }
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const paymentIntents = new Map<string, Obj>();
  const idempotent = new Map<string, { status: number; body: string }>();
  const requests: string[] = [];
  let url = "";

  const standIn: StripeStandIn = {
    url: "",
    customers,
    sessions,
    paymentIntents,
    requests,
    webhook: null,
    deliveries: [],
    failCharges: 0,
    pay(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      if (session.status !== "complete") {
        const intent: Obj = {
          id: id("pi"),
          object: "payment_intent",
          amount: session.amount_total,
          amount_received: session.amount_total,
          currency: session.currency,
          customer: session.customer,
          payment_method: id("pm"),
          status: "succeeded",
          metadata: session.metadata,
        };
        paymentIntents.set(intent.id as string, intent);
        Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: intent.id });
      }
      return standIn.completedEvent(sessionId);
    },
    completedEvent(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      return {
        id: id("evt"),
        object: "event",
        type: "checkout.session.completed",
        api_version: "2025-01-01",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { ...session } },
      };
    },
    sign(payload, secret) {
      return Stripe.webhooks.generateTestHeaderString({ payload, secret });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const answer = (res: http.ServerResponse, status: number, body: Obj) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "request-id": id("req") });
    res.end(text);
    return { status, body: text };
  };
  const notFound = (res: http.ServerResponse, what: string) =>
    answer(res, 404, {
      error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` },
    });

  const route = (method: string, path: string, form: Obj, res: http.ServerResponse) => {
    let m: RegExpMatchArray | null;
    if (method === "POST" && path === "/v1/customers") {
      const customer = { id: id("cus"), object: "customer", name: form.name ?? null, metadata: form.metadata ?? {} };
      customers.set(customer.id, customer);
      return answer(res, 200, customer);
    }
    if (method === "GET" && (m = path.match(/^\/v1\/customers\/([\w]+)$/))) {
      const customer = customers.get(m[1]);
      return customer ? answer(res, 200, customer) : notFound(res, `customer: '${m[1]}'`);
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const items = form.line_items as Record<string, { quantity: string; price_data: Obj }>;
      const item = items["0"];
      const amount = Number(item.price_data.unit_amount) * Number(item.quantity);
      const sessionId = id("cs_test");
      const session: Obj = {
        id: sessionId,
        object: "checkout.session",
        mode: form.mode,
        client_reference_id: form.client_reference_id ?? null,
        customer: form.customer ?? null,
        amount_total: amount,
        currency: item.price_data.currency,
        metadata: form.metadata ?? {},
        payment_intent: null,
        payment_status: "unpaid",
        status: "open",
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        setup_future_usage: (form.payment_intent_data as Obj | undefined)?.setup_future_usage ?? null,
        url: `${url}/checkout/${sessionId}`,
      };
      sessions.set(sessionId, session);
      return answer(res, 200, session);
    }
    if (method === "GET" && (m = path.match(/^\/v1\/payment_intents\/([\w]+)$/))) {
      const intent = paymentIntents.get(m[1]);
      return intent ? answer(res, 200, intent) : notFound(res, `payment_intent: '${m[1]}'`);
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      const intent: Obj = {
        id: id("pi"),
        object: "payment_intent",
        amount: Number(form.amount),
        currency: form.currency,
        customer: form.customer,
        payment_method: form.payment_method,
        off_session: form.off_session === "true",
        metadata: form.metadata ?? {},
      };
      paymentIntents.set(intent.id as string, intent);
      if (!customers.has(String(form.customer))) return notFound(res, `customer: '${String(form.customer)}'`);
      if (form.confirm === "true" && standIn.failCharges > 0) {
        standIn.failCharges -= 1;
        Object.assign(intent, { status: "requires_payment_method", amount_received: 0 });
        return answer(res, 402, {
          error: {
            type: "card_error",
            code: "card_declined",
            decline_code: "insufficient_funds",
            message: "Your card has insufficient funds.",
            payment_intent: intent,
          },
        });
      }
      Object.assign(intent, {
        status: form.confirm === "true" ? "succeeded" : "requires_confirmation",
        amount_received: form.confirm === "true" ? intent.amount : 0,
      });
      return answer(res, 200, intent);
    }
    return notFound(res, `route: ${method} ${path}`);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const { pathname } = new URL(req.url ?? "/", "http://stand-in");
      requests.push(`${method} ${pathname}`);
      // The hosted checkout page: one button that pays; the test (playing Stripe) then posts the signed event.
      let m: RegExpMatchArray | null;
      if ((m = pathname.match(/^\/checkout\/([\w]+)(\/pay)?$/))) {
        const session = sessions.get(m[1]);
        if (!session) return void notFound(res, "checkout");
        if (m[2] && method === "POST") {
          const event = standIn.pay(m[1]);
          const hook = standIn.webhook;
          const delivered = hook
            ? deliver(hook, event).then((status) => void standIn.deliveries.push({ eventId: String(event.id), status }))
            : Promise.resolve();
          return void delivered.finally(() => {
            res.writeHead(303, { location: String(session.success_url) });
            res.end();
          });
        }
        const amount = `${(Number(session.amount_total) / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return void res.end(
          `<!doctype html><html lang="en"><head><title>Stand-in Checkout</title></head><body>` +
            `<main><h1>Pay ${amount}</h1><p data-testid="session">${m[1]}</p>` +
            `<form method="post" action="/checkout/${m[1]}/pay"><button type="submit">Pay ${amount}</button></form>` +
            `</main></body></html>`,
        );
      }
      if (!String(req.headers.authorization ?? "").startsWith("Bearer sk_"))
        return void answer(res, 401, {
          error: { type: "invalid_request_error", message: "Invalid API Key provided" },
        });
      const key = req.headers["idempotency-key"];
      const replay = typeof key === "string" ? idempotent.get(`${method} ${pathname} ${key}`) : undefined;
      if (replay) {
        res.writeHead(replay.status, { "content-type": "application/json", "idempotent-replayed": "true" });
        return void res.end(replay.body);
      }
      const form = method === "GET" ? {} : parseForm(Buffer.concat(chunks).toString("utf8"));
      const answered = route(method, pathname, form, res);
      if (typeof key === "string" && method === "POST") idempotent.set(`${method} ${pathname} ${key}`, answered);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.url = url;
  return standIn;
}
