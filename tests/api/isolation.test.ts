import { describe, expect, it } from "vitest";
import { accountListSchema, accountSchema, balanceSchema } from "@/lib/billing/schemas";
import { rateSchema } from "@/lib/rating/schemas";
import { api, apiServers, query, walkPages, type ApiServer, type GroupName, type KeyName } from "./helpers";

// Tenant isolation: (key of A, key of B, platform key) x (list, single, balances, rates, accounts).

interface Viewer {
  key: KeyName;
  /** The group a bound key belongs to; null for the platform key. */
  group: "a" | "b" | null;
}
const VIEWERS: Viewer[] = [
  { key: "readA", group: "a" },
  { key: "readB", group: "b" },
  { key: "platformRead", group: null },
];

const sees = (viewer: Viewer, group: GroupName) => viewer.group === null || viewer.group === group;

describe.each(apiServers())("tenant isolation on $engine", (server: ApiServer) => {
  const window = { "startTime[gte]": server.windowStart, "startTime[lte]": server.windowEnd };

  it.each(VIEWERS)("list: $key sees exactly its groups' calls", async (viewer) => {
    const { calls } = await walkPages(server, `/v1/calls${query({ pageSize: 1000, ...window })}`, viewer.key);
    const want = server.calls
      .filter((c) => (c.group === "a" || c.group === "b") && sees(viewer, c.group))
      .map((c) => c.id);
    expect(calls.map((c) => c.id)).toEqual(want);
  });

  it.each(VIEWERS)("single: $key reads its own calls and gets 404 for the others", async (viewer) => {
    for (const group of ["a", "b"] as const) {
      const sample = server.calls.filter((c) => c.group === group).slice(0, 5);
      for (const call of sample) {
        const res = await api<{ id: string; billingGroupId: string }>(server, `/v1/calls/${call.id}`, {
          key: viewer.key,
        });
        if (sees(viewer, group)) {
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ id: call.id, billingGroupId: server.groups[group].id, uuid: call.uuid });
        } else {
          expect(res.status).toBe(404);
          expect(res.text).not.toContain(call.uuid);
        }
      }
    }
  });

  it.each(VIEWERS)("balances: $key gets its own group's balance, a platform key 400", async (viewer) => {
    const res = await api(server, "/v1/balances", { key: viewer.key });
    if (viewer.group === null) {
      expect(res.status).toBe(400);
      return;
    }
    expect(res.status).toBe(200);
    const g = server.groups[viewer.group];
    expect(balanceSchema.strict().parse(res.body)).toEqual({
      billingGroupId: g.id,
      balance: g.balance,
      currency: g.currency,
      disabled: false,
    });
  });

  it.each(VIEWERS)("rates: $key matches on its own group's card only", async (viewer) => {
    const res = await api(server, "/v1/rates?destination=442071234567", { key: viewer.key });
    if (viewer.group === null) {
      expect(res.status).toBe(400);
      return;
    }
    expect(res.status).toBe(200);
    const rate = rateSchema.strict().parse(res.body);
    // A's card has 4420 (0.012, 60/60); B's has the longer 442071 (0.02, 60/60).
    const want =
      viewer.group === "a" ? { matchedPrefix: "4420", sellRate: 0.012 } : { matchedPrefix: "442071", sellRate: 0.02 };
    expect(rate).toEqual({
      destination: "442071234567",
      ...want,
      billingIncrement: "60/60",
      connectFee: null,
      minCharge: null,
      description: null,
      effectiveFrom: "1970-01-01T00:00:00.000Z",
      currency: server.groups[viewer.group].currency,
    });
    // "1" is only on A's card.
    const us = await api(server, "/v1/rates?destination=14155550100", { key: viewer.key });
    expect(us.status).toBe(viewer.group === "a" ? 200 : 404);
  });

  it("rates: longest prefix wins and increments render as minimum/interval", async () => {
    const cases: [string, string, number, string][] = [
      ["4479", "44", 0.05, "60/60"],
      ["442012", "4420", 0.012, "60/60"],
      ["33612345678", "33", 0.03, "30/6"],
      ["1", "1", 0.01, "1/1"],
    ];
    for (const [destination, matchedPrefix, sellRate, billingIncrement] of cases) {
      const res = await api(server, `/v1/rates?destination=${destination}`, { key: "readA" });
      expect(res.body).toEqual({
        destination,
        matchedPrefix,
        sellRate,
        billingIncrement,
        connectFee: null,
        minCharge: null,
        description: null,
        effectiveFrom: "1970-01-01T00:00:00.000Z",
        currency: "USD",
      });
    }
  });

  it.each(VIEWERS)("accounts: $key lists and reads exactly the groups it may see", async (viewer) => {
    const list = await api(server, "/v1/accounts", { key: viewer.key });
    expect(list.status).toBe(200);
    const { accounts } = accountListSchema.strict().parse(list.body);
    const visible = (Object.keys(server.groups) as GroupName[]).filter((g) => sees(viewer, g));
    const fixtureIds = new Set(Object.values(server.groups).map((g) => g.id));
    const listed = accounts.map((a) => a.id);
    // A platform key lists every group: the fixtures', and any a provisioning test created (POST /v1/accounts);
    // a bound key exactly its own.
    const listedFixtures = viewer.group === null ? listed.filter((id) => fixtureIds.has(id)) : listed;
    expect(listedFixtures.sort()).toEqual(visible.map((g) => server.groups[g].id).sort());
    for (const g of Object.keys(server.groups) as GroupName[]) {
      const res = await api(server, `/v1/accounts/${server.groups[g].id}`, { key: viewer.key });
      if (!sees(viewer, g)) {
        expect(res.status).toBe(404);
        continue;
      }
      expect(res.status).toBe(200);
      const account = accountSchema.strict().parse(res.body);
      expect(account).toMatchObject({
        id: server.groups[g].id,
        name: server.groups[g].name,
        currency: server.groups[g].currency,
      });
      expect(account.disabled).toBe(g === "c");
      if (g !== "scratch") expect(account.balance).toBe(server.groups[g].balance);
    }
  });
});
