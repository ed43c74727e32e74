import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountDetail, BalanceMovement } from "@/lib/billing/provisioning-schemas";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// Provisioning (README "Provisioning"): POST/PATCH /v1/accounts, top-ups and adjustments, for platform keys with
// accounts:write / payments:write; each with an Idempotency-Key and an audit event of the change.

interface Problem {
  code: string;
  errors?: { param: string; message: string }[];
}

function send<T>(server: ApiServer, key: KeyName, method: string, path: string, body: unknown, idem?: string) {
  return api<T>(server, path, {
    key,
    method,
    body,
    headers: idem === undefined ? {} : { "Idempotency-Key": idem },
  });
}

const params = (body: unknown) => ((body as Problem).errors ?? []).map((e) => e.param).sort();

describe.each(apiServers())("provisioning on $engine", (server) => {
  const newAccount = async (extra: Record<string, unknown> = {}) => {
    const res = await send<AccountDetail>(server, "platformProvision", "POST", "/v1/accounts", {
      name: `Acme ${randomUUID().slice(0, 8)}`,
      currency: "EUR",
      ...extra,
    });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };

  it("creates an account, changes it, tops it up and adjusts it, exactly, with an audit event for each", async () => {
    const accountcode = `acme-${randomUUID().slice(0, 8)}`;
    const created = await send<AccountDetail>(
      server,
      "platformProvision",
      "POST",
      "/v1/accounts",
      { name: "Acme Telecom", currency: "EUR", creditLimit: "10.5", accountcode, openingBalance: "0.000001" },
      randomUUID(),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/accounts/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: "Acme Telecom",
      currency: "EUR",
      balance: 0.000001,
      creditLimit: 10.5,
      accountcode,
      disabled: false,
      disabledByOperator: false,
    });
    const id = created.body.id;
    // A platform reader sees it like any account.
    expect((await api(server, `/v1/accounts/${id}`, { key: "platformRead" })).body).toMatchObject({ id });

    const top = await send<BalanceMovement>(server, "platformProvision", "POST", `/v1/accounts/${id}/top-ups`, {
      amount: "25.123456",
      description: "Wire 42",
    });
    expect(top.status).toBe(201);
    expect(top.body).toMatchObject({ kind: "topup", amount: 25.123456, description: "Wire 42" });
    expect(top.body.account.balance).toBe(25.123457);
    const adjusted = await send<BalanceMovement>(
      server,
      "platformProvision",
      "POST",
      `/v1/accounts/${id}/adjustments`,
      { amount: "-0.123457", description: "Refund of a duplicate call" },
    );
    expect(adjusted.status).toBe(201);
    expect(adjusted.body).toMatchObject({ kind: "adjustment", amount: -0.123457 });
    expect(adjusted.body.account.balance).toBe(25);

    const patched = await send<AccountDetail>(server, "platformProvision", "PATCH", `/v1/accounts/${id}`, {
      name: "Acme Telecom GmbH",
      creditLimit: "0",
      accountcode: null,
      disabled: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "Acme Telecom GmbH",
      creditLimit: 0,
      accountcode: null,
      disabled: true,
      disabledByOperator: true,
      balance: 25,
    });
    const enabled = await send<AccountDetail>(server, "platformProvision", "PATCH", `/v1/accounts/${id}`, {
      disabled: false,
    });
    expect(enabled.body).toMatchObject({ disabled: false, name: "Acme Telecom GmbH" });

    const events = await api<{ events: { action: string; actor: { type: string; id: string } }[] }>(
      server,
      `/v1/audit-events${query({ account: id, pageSize: 50 })}`,
      { key: "platformAudit" },
    );
    expect(events.status).toBe(200);
    expect(events.body.events.map((e) => e.action).reverse()).toEqual([
      "account.created",
      "account.topped_up",
      "account.adjusted",
      "account.updated",
      "account.updated",
    ]);
    for (const e of events.body.events) {
      expect(e.actor).toMatchObject({ type: "api_key", id: server.keyIds.platformProvision });
    }
  });

  it("replays a top-up sent twice with one Idempotency-Key (one ledger entry) and refuses the key for another body", async () => {
    const account = await newAccount();
    const idem = randomUUID();
    const path = `/v1/accounts/${account.id}/top-ups`;
    const first = await send<BalanceMovement>(server, "platformProvision", "POST", path, { amount: "5" }, idem);
    expect(first.status).toBe(201);
    const again = await send<BalanceMovement>(server, "platformProvision", "POST", path, { amount: "5" }, idem);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await send<Problem>(server, "platformProvision", "POST", path, { amount: "6" }, idem);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_key_reused");
    // The same key on another path is another request, too.
    const elsewhere = await send<Problem>(
      server,
      "platformProvision",
      "POST",
      `/v1/accounts/${account.id}/adjustments`,
      { amount: "5" },
      idem,
    );
    expect(elsewhere.status).toBe(409);
    const read = await api<{ balance: number }>(server, `/v1/accounts/${account.id}`, { key: "platformRead" });
    expect(read.body.balance).toBe(5);
    // Creating: the replay names the same account, and no second one exists.
    const createKey = randomUUID();
    const body = { name: `Once ${createKey}`, currency: "USD" };
    const made = await send<AccountDetail>(server, "platformProvision", "POST", "/v1/accounts", body, createKey);
    const remade = await send<AccountDetail>(server, "platformProvision", "POST", "/v1/accounts", body, createKey);
    expect(remade.body.id).toBe(made.body.id);
    const list = await api<{ accounts: { name: string }[] }>(server, "/v1/accounts", { key: "platformRead" });
    expect(list.body.accounts.filter((a) => a.name === body.name)).toHaveLength(1);
  });

  it("needs the scope, and a platform key or an account below the caller's", async () => {
    const account = await newAccount();
    const topUp = { amount: "1" };
    const cases: [KeyName, string, string, unknown][] = [
      ["platformRead", "POST", "/v1/accounts", { name: "X", currency: "USD" }],
      ["platformAccounts", "POST", `/v1/accounts/${account.id}/top-ups`, topUp],
      ["platformAccounts", "POST", `/v1/accounts/${account.id}/adjustments`, { amount: "1", description: "x" }],
      ["readA", "PATCH", `/v1/accounts/${account.id}`, { name: "Mine now" }],
      // A bound key provisions only the accounts below its own (docs/contract.md "Reseller tiers"): c has none.
      ["boundProvision", "PATCH", `/v1/accounts/${server.groups.c.id}`, { creditLimit: "1000" }],
      ["boundProvision", "POST", `/v1/accounts/${server.groups.c.id}/top-ups`, topUp],
    ];
    for (const [key, method, path, body] of cases) {
      const res = await send<Problem>(server, key, method, path, body);
      expect(res.status, `${key} ${method} ${path}`).toBe(403);
      expect(res.body.code).toBe("insufficient_scope");
    }
    const outside = { name: "X", parentId: server.groups.a.id };
    const underA = await send<Problem>(server, "boundProvision", "POST", "/v1/accounts", outside);
    expect([underA.status, underA.body.code]).toEqual([422, "unknown_parent"]);
    const ofA = await send<Problem>(server, "boundProvision", "PATCH", `/v1/accounts/${server.groups.a.id}`, {
      name: "Mine",
    });
    expect(ofA.status).toBe(404);
    expect((await send(server, "platformAccounts", "PATCH", `/v1/accounts/${account.id}`, { name: "Ok" })).status).toBe(
      200,
    );
    expect((await api(server, "/v1/accounts", { method: "POST", body: { name: "X", currency: "USD" } })).status).toBe(
      401,
    );
    const c = await api<{ balance: number; disabled: boolean }>(server, `/v1/accounts/${server.groups.c.id}`, {
      key: "platformRead",
    });
    expect(c.body).toMatchObject({ balance: server.groups.c.balance, disabled: true });
  });

  it("refuses bad input with 4xx naming the field", async () => {
    const account = await newAccount({ accountcode: `taken-${randomUUID().slice(0, 8)}` });
    const bad: [string, string, unknown, number, string[]][] = [
      ["POST", "/v1/accounts", { currency: "euro", creditLimit: -1 }, 422, ["creditLimit", "currency", "name"]],
      ["POST", "/v1/accounts", { name: "X", currency: "USD", creditLimit: "-1" }, 422, ["creditLimit"]],
      // A currency is fixed for the account's life: a typo or a fund/test code is no currency to open one in.
      ["POST", "/v1/accounts", { name: "X", currency: "USX" }, 422, ["currency"]],
      ["POST", "/v1/accounts", { name: "X", currency: "XXX" }, 422, ["currency"]],
      ["POST", "/v1/accounts", { name: "X\u0000", currency: "USD", colour: "red" }, 422, ["colour", "name"]],
      ["POST", "/v1/accounts", { name: "X", currency: "USD", accountcode: account.accountcode }, 409, ["accountcode"]],
      ["PATCH", `/v1/accounts/${account.id}`, {}, 422, ["(body)"]],
      [
        "PATCH",
        `/v1/accounts/${account.id}`,
        { disabled: "yes", creditLimit: "1.0000001" },
        422,
        ["creditLimit", "disabled"],
      ],
      ["POST", `/v1/accounts/${account.id}/top-ups`, { amount: 5 }, 422, ["amount"]],
      ["POST", `/v1/accounts/${account.id}/top-ups`, { amount: "0" }, 422, ["amount"]],
      ["POST", `/v1/accounts/${account.id}/top-ups`, { amount: "-5" }, 422, ["amount"]],
      ["POST", `/v1/accounts/${account.id}/adjustments`, { amount: "0" }, 422, ["amount", "description"]],
      ["POST", `/v1/accounts/${account.id}/top-ups`, "not json", 422, ["(body)"]],
    ];
    for (const [method, path, body, status, fields] of bad) {
      const res = await send<Problem>(server, "platformProvision", method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(params(res.body)).toEqual(fields);
    }
    expect((await send(server, "platformProvision", "PATCH", "/v1/accounts/bg_unknown", { name: "X" })).status).toBe(
      404,
    );
    expect(
      (await send(server, "platformProvision", "POST", "/v1/accounts/bg_unknown/top-ups", { amount: "1" })).status,
    ).toBe(404);
    const badKey = await send<Problem>(server, "platformProvision", "POST", "/v1/accounts", { name: "X" }, "");
    expect(badKey.status).toBe(400);
    expect(params(badKey.body)).toEqual(["Idempotency-Key"]);
  });

  it("creates a child account under a parent, in the parent's currency, and refuses an unknown parent or another currency", async () => {
    const parent = await send<AccountDetail>(server, "platformProvision", "POST", "/v1/accounts", {
      name: "Reseller",
      currency: "EUR",
    });
    expect(parent.body.parentId).toBeNull();
    const child = await send<AccountDetail>(server, "platformProvision", "POST", "/v1/accounts", {
      name: "Customer",
      parentId: parent.body.id,
    });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ parentId: parent.body.id, currency: "EUR" });
    expect(
      (await api<AccountDetail>(server, `/v1/accounts/${child.body.id}`, { key: "platformRead" })).body,
    ).toMatchObject({ parentId: parent.body.id });
    const refused: [unknown, string, string[]][] = [
      [{ name: "X", currency: "USD", parentId: parent.body.id }, "currency_mismatch", ["currency"]],
      [{ name: "X", parentId: "bg_nosuchparent" }, "unknown_parent", ["parentId"]],
      [{ name: "X" }, "invalid_request_body", ["currency"]],
    ];
    for (const [body, code, fields] of refused) {
      const res = await send<Problem>(server, "platformProvision", "POST", "/v1/accounts", body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.code).toBe(code);
      expect(params(res.body)).toEqual(fields);
    }
  });

  it("lists the operations in the OpenAPI document, with the Idempotency-Key header", async () => {
    const doc = await api<{ paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> }>(
      server,
      "/v1/openapi.json",
    );
    for (const [path, method] of [
      ["/v1/accounts", "post"],
      ["/v1/accounts/{id}", "patch"],
      ["/v1/accounts/{id}/top-ups", "post"],
      ["/v1/accounts/{id}/adjustments", "post"],
      ["/v1/exports", "post"],
    ]) {
      const operation = doc.body.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.parameters?.some((p) => p.name === "Idempotency-Key" && p.in === "header")).toBe(true);
    }
  });
});
