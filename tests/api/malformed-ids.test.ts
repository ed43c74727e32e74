import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import { api, apiServers, query, type ApiResponse, type ApiServer, type KeyName } from "./helpers";

// Malformed ids and amounts that once answered 500 (issue 28, item 8; docs/contract.md §3): a NUL in a path id reached
// SQL, which refused the statement; so did one in the `account` filter and in a thresholds body; and a top-up could
// take the balance past what a bigint holds. Each now answers its documented 4xx before any SQL runs.

interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: { param: string; message: string }[];
}

function expectProblem(res: ApiResponse, status: number, code: string, where: string): Problem {
  expect({ where, status: res.status, text: res.text.slice(0, 300) }).toMatchObject({ status });
  expect(res.headers.get("content-type"), where).toContain("application/problem+json");
  expect(res.body, where).toMatchObject({ status, code });
  return res.body as Problem;
}

const send = (server: ApiServer, key: KeyName, method: string, path: string, body?: unknown) =>
  api(server, path, {
    key,
    method,
    body,
    headers: method === "POST" ? { "idempotency-key": randomUUID() } : {},
  });

/** Ids no resource can have: a NUL alone, after the right prefix, inside text; a space; the wrong prefix. */
const MALFORMED = ["%00", "we_%00", "bg_a%00b", "sup_%00", "a%20b", "x".repeat(70)];

describe.each(apiServers())("malformed ids and amounts on $engine", (server) => {
  it("answers 404 not_found for a malformed webhook endpoint id, to a platform caller and a customer's alike", async () => {
    for (const key of ["platformAlerts", "alertsC"] as const) {
      for (const id of MALFORMED) {
        const path = `/v1/webhook-endpoints/${id}`;
        for (const [method, p, body] of [
          ["GET", path, undefined],
          ["PATCH", path, { disabled: true }],
          ["DELETE", path, undefined],
          ["POST", `${path}/test`, undefined],
          ["GET", `${path}/deliveries`, undefined],
          ["POST", `${path}/deliveries/msg_0123/resend`, undefined],
        ] as const) {
          expectProblem(await send(server, key, method, p, body), 404, "not_found", `${key} ${method} ${p}`);
        }
      }
    }
  });

  it("answers 404 not_found for a malformed delivery id of a real endpoint", async () => {
    const created = await send(server, "alertsC", "POST", "/v1/webhook-endpoints", {
      url: "https://93.184.215.14/hooks/callbook",
      eventTypes: ["balance.low"],
    });
    expect(created.status, created.text).toBe(201);
    const path = `/v1/webhook-endpoints/${(created.body as { id: string }).id}`;
    try {
      // Disabled at once: nothing is ever sent to it (tests/api/alerts.test.ts does the same).
      expect((await send(server, "alertsC", "PATCH", path, { disabled: true })).status).toBe(200);
      for (const eventId of ["%00", "msg_%00", "msg_a%00"]) {
        const p = `${path}/deliveries/${eventId}/resend`;
        expectProblem(await send(server, "alertsC", "POST", p), 404, "not_found", p);
      }
    } finally {
      expect((await send(server, "alertsC", "DELETE", path)).status).toBe(200);
    }
  });

  it("answers 404 not_found for a malformed account or supplier id of a rate deck path", async () => {
    for (const owner of ["accounts", "suppliers"]) {
      for (const id of MALFORMED) {
        for (const [method, p] of [
          ["GET", `/v1/${owner}/${id}/rate-decks`],
          ["POST", `/v1/${owner}/${id}/rate-decks?dryRun=true`],
          ["GET", `/v1/${owner}/${id}/rate-decks/current`],
        ] as const) {
          const res = await api(server, p, {
            key: "platformRates",
            method,
            body: method === "POST" ? "prefix,rate,increment\n44,0.01,1/1\n" : undefined,
            headers: method === "POST" ? { "content-type": "text/csv", "idempotency-key": randomUUID() } : {},
          });
          expectProblem(res, 404, "not_found", `${method} ${p}`);
        }
      }
    }
  });

  it("answers 400 naming `account` for a malformed account filter, and 422 naming `billingGroupId` in a thresholds body", async () => {
    for (const path of ["/v1/webhook-endpoints", "/v1/alert-thresholds"]) {
      for (const account of ["\u0000", "bg_\u0000", "a\u0000b"]) {
        const res = await api(server, `${path}${query({ account })}`, { key: "platformAlerts" });
        const problem = expectProblem(res, 400, "invalid_parameter", `${path} account=${JSON.stringify(account)}`);
        expect(problem.errors?.map((e) => e.param)).toEqual(["account"]);
      }
    }
    for (const billingGroupId of ["\u0000", "bg_\u0000"]) {
      const res = await send(server, "platformAlerts", "PUT", "/v1/alert-thresholds", {
        billingGroupId,
        thresholds: ["10.00"],
      });
      const problem = expectProblem(res, 422, "invalid_request_body", `thresholds ${JSON.stringify(billingGroupId)}`);
      expect(problem.errors?.map((e) => e.param)).toEqual(["billingGroupId"]);
    }
  });

  it("bounds amounts and balances at 1 000 000 000 000 either way: 422 naming `amount`, nothing moved", async () => {
    const created = await send(server, "platformProvision", "POST", "/v1/accounts", {
      name: `Bound ${randomUUID().slice(0, 8)}`,
      currency: "EUR",
      openingBalance: "1.00",
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as AccountDetail).id;
    const move = (kind: "top-ups" | "adjustments", amount: string) =>
      send(server, "platformProvision", "POST", `/v1/accounts/${id}/${kind}`, { amount, description: "bound test" });
    const balance = async () =>
      (await api<AccountDetail>(server, `/v1/accounts/${id}`, { key: "platformRead" })).body.balance;

    // The largest bigint of micro-units: on a positive balance it overflowed the column (a 500).
    for (const [kind, amount] of [
      ["top-ups", "9223372036854.775807"],
      ["top-ups", "1000000000000.000001"],
      ["adjustments", "-9223372036854.775807"],
    ] as const) {
      const problem = expectProblem(await move(kind, amount), 422, "invalid_request_body", `${kind} ${amount}`);
      expect(problem.errors?.map((e) => e.param)).toEqual(["amount"]);
    }
    expect(await balance()).toBe(1);

    // Up to the bound is fine; past it, the balance stays as it was.
    expect((await move("top-ups", "999999999999")).status).toBe(201);
    expect(await balance()).toBe(1_000_000_000_000);
    const above = expectProblem(await move("top-ups", "0.000001"), 422, "invalid_request_body", "above the bound");
    expect(above.errors?.map((e) => e.param)).toEqual(["amount"]);
    expect(above.detail).toMatch(/1000000000000/);
    expect(await balance()).toBe(1_000_000_000_000);
    expect((await move("adjustments", "-1000000000000")).status).toBe(201);
    expect((await move("adjustments", "-1000000000000")).status).toBe(201);
    expect(await balance()).toBe(-1_000_000_000_000);
    const below = expectProblem(await move("adjustments", "-1"), 422, "invalid_request_body", "below the bound");
    expect(below.errors?.map((e) => e.param)).toEqual(["amount"]);
    expect(await balance()).toBe(-1_000_000_000_000);
  });
});
