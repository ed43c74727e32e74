import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { AccountDetail, BalanceMovement } from "@/lib/billing/provisioning-schemas";
import type { DeckDiffJson, DeckImportJson } from "@/lib/rating/schemas";
import { api, apiServers, type ApiResponse, type ApiServer } from "./helpers";

// A reseller provisions within its own subtree (issue 32 items 4-5, docs/contract.md "Reseller tiers", §21). The walk
// builds its own tree over the API (so the fixture tiers' exact listings stay as they are):
//
//   operator > R1 > R2 > C          R1 > S > SC (R2's sibling's subtree)          U (another root)
//
// and asks every provisioning operation as the operator, R1 (a reseller), R2 (a sub-reseller), C (a customer: with a
// key holding every provisioning scope, as only the operator could make it, and with what its owner's role holds), on
// the caller's own account, a descendant, and an account of a sibling's subtree.

type Node = "R1" | "R2" | "C" | "S" | "SC" | "U";
type Caller = "operator" | "R1" | "R2" | "C" | "Crole";

const PARENT: Record<Node, Node | null> = { R1: null, R2: "R1", C: "R2", S: "R1", SC: "S", U: null };
/** Each caller's own account, a descendant (none for a customer) and an account outside its subtree. */
const TARGETS: Record<Exclude<Caller, "operator">, { own: Node; descendant: Node | null; outside: Node[] }> = {
  R1: { own: "R1", descendant: "C", outside: ["U"] },
  R2: { own: "R2", descendant: "C", outside: ["SC", "R1"] },
  C: { own: "C", descendant: null, outside: ["SC", "R2"] },
  Crole: { own: "C", descendant: null, outside: ["SC"] },
};
// Each tier's price for 44: every child pays more than its parent, so the platform's decks pass the margin guard.
const RATE: Record<Node, string> = { R1: "0.10", U: "0.10", R2: "0.20", S: "0.20", C: "0.30", SC: "0.30" };
const deck = (rate: string) => `prefix,rate,increment\n44,${rate},60/60\n4420,${rate},60/60\n`;
const PROVISIONING = ["calls:read", "accounts:write", "payments:write", "rates:write", "alerts:write"];
/** What a customer's owner holds (lib/auth/roles.ts): no provisioning scope. */
const OWNER_ROLE = ["calls:read", "alerts:write", "limits:write"];

type Outcome = "ok" | "own" | "outside";

interface Problem {
  code: string;
  detail: string;
  errors?: { param: string; message: string }[];
}

describe.each(apiServers())("reseller provisioning on $engine", (server: ApiServer) => {
  const ids = {} as Record<Node, string>;
  const keys = {} as Record<Caller, string>;
  const decks = {} as Record<Node, string>;

  const ask = <T = unknown>(
    caller: Caller,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> =>
    api<T>(server, path, {
      authorization: `Bearer ${keys[caller]}`,
      method,
      body,
      headers: { "Idempotency-Key": randomUUID(), ...headers },
    });
  const csv = (caller: Caller, path: string, text: string) =>
    ask<DeckDiffJson | DeckImportJson | Problem>(caller, "POST", path, text, { "content-type": "text/csv" });
  const balance = async (node: Node) =>
    (await api<{ balance: number }>(server, `/v1/accounts/${ids[node]}`, { key: "platformTiers" })).body.balance;

  beforeAll(async () => {
    keys.operator = server.keys.platformTiers;
    for (const node of ["R1", "U", "R2", "S", "C", "SC"] as const) {
      const parent = PARENT[node];
      const made = await api<AccountDetail>(server, "/v1/accounts", {
        key: "platformTiers",
        body: {
          name: `Walk ${node} ${randomUUID().slice(0, 6)}`,
          ...(parent ? { parentId: ids[parent] } : { currency: "USD", openingBalance: "100" }),
        },
      });
      expect(made.status, made.text).toBe(201);
      ids[node] = made.body.id;
      const imported = await csv("operator", `/v1/accounts/${ids[node]}/rate-decks`, deck(RATE[node]));
      expect(imported.status, imported.text).toBe(201);
      decks[node] = (imported.body as DeckImportJson).deckId;
    }
    const keyOf = async (node: Node, scopes: string[]) => {
      const made = await api<{ secret: string }>(server, "/v1/api-keys", {
        key: "platformTiers",
        body: { name: `walk ${node}`, scopes, billingGroupId: ids[node] },
      });
      expect(made.status, made.text).toBe(201);
      return made.body.secret;
    };
    // R2 starts with money of its own (from outside, the operator's) to pass on to C.
    const funded = await api(server, `/v1/accounts/${ids.R2}/top-ups`, {
      key: "platformTiers",
      body: { amount: "20" },
    });
    expect(funded.status, funded.text).toBe(201);
    keys.R1 = await keyOf("R1", PROVISIONING);
    keys.R2 = await keyOf("R2", PROVISIONING);
    keys.C = await keyOf("C", PROVISIONING);
    keys.Crole = await keyOf("C", OWNER_ROLE);
  }, 120_000);

  /** Every provisioning operation on one account: [name, request, the status of each outcome]. */
  const operations: [string, (caller: Caller, target: Node) => Promise<ApiResponse>, Record<Outcome, number>][] = [
    [
      "PATCH /v1/accounts/{id}",
      (c, t) => ask(c, "PATCH", `/v1/accounts/${ids[t]}`, { creditLimit: "1" }),
      { ok: 200, own: 403, outside: 404 },
    ],
    [
      "POST /v1/accounts/{id}/top-ups",
      (c, t) => ask(c, "POST", `/v1/accounts/${ids[t]}/top-ups`, { amount: "1" }),
      { ok: 201, own: 403, outside: 404 },
    ],
    [
      "POST /v1/accounts/{id}/adjustments",
      (c, t) => ask(c, "POST", `/v1/accounts/${ids[t]}/adjustments`, { amount: "0.5", description: "walk" }),
      { ok: 201, own: 403, outside: 404 },
    ],
    [
      "POST /v1/accounts/{id}/rate-decks?dryRun=true",
      (c, t) => csv(c, `/v1/accounts/${ids[t]}/rate-decks?dryRun=true`, deck("9")),
      { ok: 200, own: 403, outside: 404 },
    ],
    // Reads of decks: a caller's own (what it pays) as well as its subtree's.
    [
      "GET /v1/accounts/{id}/rate-decks",
      (c, t) => ask(c, "GET", `/v1/accounts/${ids[t]}/rate-decks`),
      { ok: 200, own: 200, outside: 404 },
    ],
    [
      "GET /v1/accounts/{id}/rate-decks/current",
      (c, t) => ask(c, "GET", `/v1/accounts/${ids[t]}/rate-decks/current`),
      { ok: 200, own: 200, outside: 404 },
    ],
    [
      "GET /v1/rate-decks/{id}",
      (c, t) => ask(c, "GET", `/v1/rate-decks/${decks[t]}`),
      { ok: 200, own: 200, outside: 404 },
    ],
    // The account's own caller writes the customer's layer, whoever provisions it the operator's.
    [
      "PUT /v1/limits",
      (c, t) => ask(c, "PUT", "/v1/limits", { billingGroupId: ids[t], maxConcurrentCalls: 50 }),
      { ok: 200, own: 200, outside: 404 },
    ],
    [
      "PUT /v1/alert-thresholds",
      (c, t) => ask(c, "PUT", "/v1/alert-thresholds", { billingGroupId: ids[t], thresholds: ["5"] }),
      { ok: 200, own: 200, outside: 404 },
    ],
    // The operator's alone, whatever the account.
    [
      "PUT /v1/accounts/{id}/auto-recharge",
      (c, t) => ask(c, "PUT", `/v1/accounts/${ids[t]}/auto-recharge`, { threshold: "1", amount: "10" }),
      { ok: 403, own: 403, outside: 403 },
    ],
    [
      "POST /v1/accounts/{id}/erase-calls",
      (c, t) => ask(c, "POST", `/v1/accounts/${ids[t]}/erase-calls`, {}),
      { ok: 403, own: 403, outside: 403 },
    ],
  ];

  it(
    "walks every provisioning operation as operator, reseller, sub-reseller and customer",
    { timeout: 240_000 },
    async () => {
      const seen: string[] = [];
      const wrong: string[] = [];
      const check = async (
        caller: Caller,
        target: Node,
        outcome: Outcome,
        [name, run, statuses]: (typeof operations)[number],
      ) => {
        // A customer's owner holds no provisioning scope: 403 on every write, whatever the account.
        const role = caller === "Crole";
        const needsScope = !/limits|alert-thresholds|GET/.test(name) || (name.startsWith("GET") && role);
        const want = role && needsScope ? 403 : statuses[outcome];
        const res = await run(caller, target);
        seen.push(`${caller} ${name} ${outcome}`);
        if (res.status !== want) wrong.push(`${caller} ${name} on ${target} (${outcome}): ${res.status} ${res.text}`);
        if (res.status === 403 && (res.body as Problem).code !== "insufficient_scope")
          wrong.push(`${caller} ${name} on ${target}: 403 ${(res.body as Problem).code}`);
      };
      for (const op of operations) {
        // The operator's auto-recharge and erasure are not walked (payments and history have their own tests).
        if (!/auto-recharge|erase-calls/.test(op[0]))
          for (const node of ["R1", "C", "U"] as const) await check("operator", node, "ok", op);
        for (const [caller, t] of Object.entries(TARGETS) as [Exclude<Caller, "operator">, (typeof TARGETS)["R1"]][]) {
          await check(caller, t.own, "own", op);
          if (t.descendant) await check(caller, t.descendant, "ok", op);
          for (const o of t.outside) await check(caller, o, "outside", op);
        }
      }
      expect(wrong).toEqual([]);
      expect(seen.length).toBeGreaterThan(100);
    },
  );

  it("creates accounts under the caller's own or a descendant, never elsewhere, in its currency", async () => {
    const create = (caller: Caller, body: Record<string, unknown>) =>
      ask<AccountDetail & Problem>(caller, "POST", "/v1/accounts", {
        name: `New ${randomUUID().slice(0, 6)}`,
        ...body,
      });
    const underOwn = await create("R2", {});
    expect([underOwn.status, underOwn.body.parentId, underOwn.body.currency]).toEqual([201, ids.R2, "USD"]);
    expect((await create("R1", { parentId: ids.C })).body.parentId).toBe(ids.C);
    for (const [caller, parent] of [
      ["R1", "U"],
      ["R2", "SC"],
      ["R2", "R1"],
      ["C", "R2"],
    ] as const) {
      const refused = await create(caller, { parentId: ids[parent] });
      expect([refused.status, refused.body.code], `${caller} under ${parent}`).toEqual([422, "unknown_parent"]);
    }
    expect((await create("R1", { openingBalance: "5" })).status).toBe(422);
    const code = await create("R1", { accountcode: `walk-${randomUUID().slice(0, 6)}` });
    expect([code.status, code.body.errors?.[0].param]).toEqual([403, "accountcode"]);
    expect((await create("R1", { currency: "EUR" })).body.code).toBe("currency_mismatch");
    expect((await create("Crole", {})).status).toBe(403);
    // The new customer is in the reseller's reach at its next request (the principal cache was told).
    const listed = await ask<{ accounts: { id: string }[] }>("R2", "GET", "/v1/accounts");
    expect(listed.body.accounts.map((a) => a.id)).toContain(underOwn.body.id);
    const fresh = await ask("R2", "PATCH", `/v1/accounts/${underOwn.body.id}`, { name: "Renamed" });
    expect(fresh.status).toBe(200);
  });

  it("moves a reseller's own money to its customer, once per Idempotency-Key, and never past its credit", async () => {
    const [r1Before, r2Before] = [await balance("R1"), await balance("R2")];
    const idem = { "Idempotency-Key": randomUUID() };
    const first = await ask<BalanceMovement>("R1", "POST", `/v1/accounts/${ids.R2}/top-ups`, { amount: "7.5" }, idem);
    expect(first.status, first.text).toBe(201);
    expect(first.body.fundedBy).toMatchObject({ accountId: ids.R1, balance: r1Before - 7.5 });
    const again = await ask<BalanceMovement>("R1", "POST", `/v1/accounts/${ids.R2}/top-ups`, { amount: "7.5" }, idem);
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.id]).toEqual([
      201,
      "true",
      first.body.id,
    ]);
    expect([await balance("R1"), await balance("R2")]).toEqual([r1Before - 7.5, r2Before + 7.5]);
    // R2 holds r2Before + 7.5 and no credit: a cent more is refused, and nothing moves.
    const tooMuch = (r2Before + 7.51).toFixed(2);
    const refused = await ask<Problem>("R2", "POST", `/v1/accounts/${ids.C}/top-ups`, { amount: tooMuch });
    expect([refused.status, refused.body.code]).toEqual([402, "insufficient_funds"]);
    expect(await balance("R2")).toBe(r2Before + 7.5);
    // The platform's top-up comes from outside: no reseller pays it.
    const outside = await ask<BalanceMovement>("operator", "POST", `/v1/accounts/${ids.C}/top-ups`, { amount: "1" });
    expect(outside.body.fundedBy).toBeUndefined();
    expect(await balance("R2")).toBe(r2Before + 7.5);
  });

  it("guards a customer's deck against the reseller's own: diff per prefix, 422 below cost unless allowed", async () => {
    const path = `/v1/accounts/${ids.C}/rate-decks`;
    const cheap = "prefix,rate,increment\n4420,0.15,60/60\n33,0.50,60/60\n";
    const dry = await csv("R2", `${path}?dryRun=true`, cheap);
    expect(dry.status, dry.text).toBe(200);
    const diff = dry.body as DeckDiffJson;
    expect(diff.parentCosts).toMatchObject({ accountId: ids.R2, belowCost: 1, unpriced: 1 });
    expect(diff.parentCosts!.rates.map((r) => [r.prefix, r.buyRate, r.status])).toEqual([
      ["4420", 0.2, "below_cost"],
      ["33", null, "unpriced"],
    ]);
    // The operator's carrier cost is not the reseller's business.
    expect(diff.marginWarnings).toEqual([]);
    expect(dry.text).not.toContain(server.supplierId);
    const from = "2030-01-01T00:00:00Z";
    const refused = await csv("R2", `${path}?effectiveFrom=${from}`, cheap);
    expect([refused.status, (refused.body as Problem).code]).toEqual([422, "below_cost"]);
    expect((refused.body as Problem).errors?.map((e) => e.param)).toEqual(["prefix 4420"]);
    const allowed = await csv("R2", `${path}?effectiveFrom=${from}&allowBelowCost=true`, cheap);
    expect(allowed.status, allowed.text).toBe(201);
  });
  it("lets a reseller's key make keys of its account with its provisioning scopes, and no wider", async () => {
    const maker = await api<{ secret: string }>(server, "/v1/api-keys", {
      key: "platformTiers",
      body: { name: "R1 keys", scopes: [...PROVISIONING, "keys:write"], billingGroupId: ids.R1 },
    });
    expect(maker.status, maker.text).toBe(201);
    const make = (scopes: string[]) =>
      api<{ secret: string; billingGroupId: string }>(server, "/v1/api-keys", {
        authorization: `Bearer ${maker.body.secret}`,
        body: { name: "R1 ops", scopes },
      });
    const made = await make(["payments:write", "accounts:write"]);
    expect([made.status, made.body.billingGroupId]).toEqual([201, ids.R1]);
    const topUp = await api<BalanceMovement>(server, `/v1/accounts/${ids.C}/top-ups`, {
      authorization: `Bearer ${made.body.secret}`,
      body: { amount: "0.25" },
    });
    expect([topUp.status, topUp.body.fundedBy?.accountId]).toEqual([201, ids.R1]);
    expect((await make(["calls:read_cost"])).status).toBe(403);
  });

  it("never hands a reseller a supplier's deck or list, whatever it names", async () => {
    const supplierDecks = await api<{ decks: { id: string }[] }>(
      server,
      `/v1/suppliers/${server.supplierId}/rate-decks`,
      { key: "platformRates" },
    );
    expect(supplierDecks.status).toBe(200);
    for (const { id } of supplierDecks.body.decks)
      expect((await ask("R1", "GET", `/v1/rate-decks/${id}`)).status).toBe(404);
    expect((await ask("R1", "GET", "/v1/suppliers")).status).toBe(403);
    expect((await ask("R1", "GET", `/v1/suppliers/${server.supplierId}/rate-decks`)).status).toBe(403);
  });
});
