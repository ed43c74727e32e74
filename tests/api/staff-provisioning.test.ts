import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountDetail, BalanceMovement } from "@/lib/billing/provisioning-schemas";
import { http, type HttpResult } from "@/lib/testing/http-client";
import { PERSON_PASSWORD, type PersonName } from "./fixtures/people";
import { api, apiServers, query, type ApiServer } from "./helpers";

// Platform staff provision with their own sessions (docs/contract.md §14, §19): the platform's owners and admins hold
// accounts:write and payments:write; a platform viewer or billing person, and every customer, get 403. The audit log
// names the person. Each person signs in from their own loopback address (the per-address sign-in allowance).

const ADDRESS: Partial<Record<PersonName, string>> = {
  staffAdmin: "127.0.4.1",
  staff: "127.0.4.2",
  staffBilling: "127.0.4.3",
  ownerA: "127.0.4.4",
};

async function signedIn(server: ApiServer, person: PersonName): Promise<string> {
  const res = await http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: server.people[person], password: PERSON_PASSWORD, next: "/calls" }).toString(),
    localAddress: ADDRESS[person],
  });
  const cookie = /^(cb_session=[^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`no session cookie for ${person}: ${res.status}`);
  return cookie;
}

/** A request from the portal's own pages (a session's unsafe request must carry the site's Origin). */
function send(server: ApiServer, cookie: string, method: string, path: string, body: unknown, idem?: string) {
  return http(server.baseUrl, path, {
    method,
    headers: {
      cookie,
      origin: server.baseUrl,
      "content-type": "application/json",
      ...(idem === undefined ? {} : { "Idempotency-Key": idem }),
    },
    body: JSON.stringify(body),
  });
}

const json = <T>(res: HttpResult) => res.json as T;

describe.each(apiServers())("staff provisioning on $engine", (server) => {
  it("a platform admin's session creates an account, changes its credit limit, disables, enables, tops up and adjusts it; audited as the person", async () => {
    const admin = await signedIn(server, "staffAdmin");
    const created = await send(server, admin, "POST", "/v1/accounts", {
      name: `Staff-made ${randomUUID().slice(0, 8)}`,
      currency: "EUR",
      creditLimit: "5",
    });
    expect(created.status, created.text).toBe(201);
    const id = json<AccountDetail>(created).id;
    const limit = await send(server, admin, "PATCH", `/v1/accounts/${id}`, { creditLimit: "12.50" });
    expect(limit.status, limit.text).toBe(200);
    expect(json<AccountDetail>(limit).creditLimit).toBe(12.5);
    const disabled = await send(server, admin, "PATCH", `/v1/accounts/${id}`, { disabled: true });
    expect(json<AccountDetail>(disabled)).toMatchObject({ disabled: true, disabledByOperator: true });
    const enabled = await send(server, admin, "PATCH", `/v1/accounts/${id}`, { disabled: false });
    expect(json<AccountDetail>(enabled)).toMatchObject({ disabled: false, disabledByOperator: false });
    const idem = randomUUID();
    const top = await send(server, admin, "POST", `/v1/accounts/${id}/top-ups`, { amount: "20.000001" }, idem);
    expect(top.status, top.text).toBe(201);
    // A double submit from the console (same Idempotency-Key) moves the money once.
    const again = await send(server, admin, "POST", `/v1/accounts/${id}/top-ups`, { amount: "20.000001" }, idem);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const adjusted = await send(server, admin, "POST", `/v1/accounts/${id}/adjustments`, {
      amount: "-0.000001",
      description: "Rounding",
    });
    expect(adjusted.status, adjusted.text).toBe(201);
    expect(json<BalanceMovement>(adjusted).account.balance).toBe(20);

    const events = await api<{ events: { action: string; actor: { type: string; label: string | null } }[] }>(
      server,
      `/v1/audit-events${query({ account: id, pageSize: 50 })}`,
      { key: "platformAudit" },
    );
    expect(events.body.events.map((e) => e.action).reverse()).toEqual([
      "account.created",
      "account.updated",
      "account.updated",
      "account.updated",
      "account.topped_up",
      "account.adjusted",
    ]);
    for (const e of events.body.events) {
      expect(e.actor).toMatchObject({ type: "user", label: server.people.staffAdmin });
    }
  });

  it("a platform admin makes and revokes a key for a given account over /v1", async () => {
    const admin = await signedIn(server, "staffAdmin");
    const made = await send(server, admin, "POST", "/v1/api-keys", {
      name: "CRM link",
      scopes: ["calls:read"],
      billingGroupId: server.groups.b.id,
    });
    expect(made.status, made.text).toBe(201);
    const key = json<{ id: string; secret: string; billingGroupId: string }>(made);
    expect(key.billingGroupId).toBe(server.groups.b.id);
    const balance = await api<{ billingGroupId: string }>(server, "/v1/balances", {
      authorization: `Bearer ${key.secret}`,
    });
    expect(balance.body.billingGroupId).toBe(server.groups.b.id);
    const revoked = await http(server.baseUrl, `/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: { cookie: admin, origin: server.baseUrl },
    });
    expect(revoked.status, revoked.text).toBe(200);
    expect((await api(server, "/v1/balances", { authorization: `Bearer ${key.secret}` })).status).toBe(401);
  });

  it("the console's pages are the platform admin's: 404 for a platform viewer and a customer owner", async () => {
    const admin = await signedIn(server, "staffAdmin");
    const page = await http(server.baseUrl, `/console/accounts/${server.groups.b.id}`, { headers: { cookie: admin } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(server.groups.b.name);
    for (const person of ["staff", "ownerA"] as const) {
      const cookie = await signedIn(server, person);
      for (const path of ["/console/accounts", "/console/accounts/new", `/console/accounts/${server.groups.b.id}`]) {
        const res = await http(server.baseUrl, path, { headers: { cookie } });
        expect(res.status, `${person} ${path}`).toBe(404);
        expect(res.text).not.toContain(server.groups.b.name);
      }
    }
  });

  it("a platform viewer, a platform billing person and a customer owner get 403 on every provisioning route", async () => {
    const target = server.groups.scratch.id;
    for (const person of ["staff", "staffBilling", "ownerA"] as const) {
      const cookie = await signedIn(server, person);
      const answers = [
        await send(server, cookie, "POST", "/v1/accounts", { name: "Not allowed", currency: "EUR" }),
        await send(server, cookie, "PATCH", `/v1/accounts/${target}`, { creditLimit: "1000" }),
        await send(server, cookie, "PATCH", `/v1/accounts/${target}`, { disabled: true }),
        await send(server, cookie, "POST", `/v1/accounts/${target}/top-ups`, { amount: "1" }, randomUUID()),
        await send(server, cookie, "POST", `/v1/accounts/${target}/adjustments`, { amount: "1", description: "x" }),
      ];
      expect(
        answers.map((a) => a.status),
        person,
      ).toEqual([403, 403, 403, 403, 403]);
      for (const a of answers) expect(json<{ code: string }>(a).code).toBe("insufficient_scope");
    }
    const scratch = await api<{ balance: number; disabled: boolean }>(server, `/v1/accounts/${target}`, {
      key: "platformRead",
    });
    expect(scratch.body.disabled).toBe(false);
  });
});
