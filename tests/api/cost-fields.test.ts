import { describe, expect, it } from "vitest";
import { accountListSchema, balanceSchema } from "@/lib/billing/schemas";
import { rateSchema } from "@/lib/rating/schemas";
import {
  callDetailSchema,
  callDetailWithCostSchema,
  callSchema,
  callWithCostSchema,
  COST_FIELD_NAMES,
} from "@/lib/calls/schemas";
import { parseMicros } from "@/lib/money/micros";
import { allKeys, api, apiServers, query, walkPages, type KeyName } from "./helpers";

// Cost fields (buyCost, margin, supplierId, buyRate) reach calls:read_cost keys only, and are
// absent (not null) for everybody else, in every response.

const READ_ONLY: KeyName[] = ["readA", "readB", "platformRead"];

describe.each(apiServers())("cost fields on $engine", (server) => {
  const window = { "startTime[gte]": server.windowStart, "startTime[lte]": server.windowEnd };

  it.each(READ_ONLY)("a deep scan of every response to %s finds no cost field name", async (key) => {
    const bodies: unknown[] = [];
    const { pages, calls } = await walkPages(server, `/v1/calls${query({ pageSize: 50, ...window })}`, key);
    bodies.push(...pages);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) callSchema.strict().parse(c);
    for (const c of calls.slice(0, 40)) {
      const res = await api(server, `/v1/calls/${c.id}`, { key });
      expect(res.status).toBe(200);
      callDetailSchema.strict().parse(res.body);
      bodies.push(res.body);
    }
    for (const path of [
      "/v1/balances",
      "/v1/rates?destination=442071234567",
      "/v1/rates?destination=999",
      "/v1/accounts",
      "/v1/calls/999999999",
    ]) {
      bodies.push((await api(server, path, { key })).body);
    }
    // Filtering by supplier would say which calls a supplier carried: refused, without echoing the id.
    for (const path of ["/v1/calls", "/v1/calls/export", "/v1/usage"]) {
      const refused = await api(server, `${path}${query({ supplierId: server.supplierId })}`, { key });
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({ code: "insufficient_scope" });
      bodies.push(refused.body);
    }
    const found = allKeys(bodies);
    for (const name of COST_FIELD_NAMES) expect(found.has(name), name).toBe(false);
    // Not even as text, e.g. inside an error detail.
    expect(JSON.stringify(bodies)).not.toMatch(/buyCost|buyRate|margin|supplierId/);
    expect(JSON.stringify(bodies)).not.toContain(server.supplierId);
  });

  // The operator's view is the platform's only (issue 32): costA and costB, bound to root groups, read their own
  // tier's figures, which on their own calls are null (they are the customer there).
  it.each(["costA", "costB"] as const)(
    "%s, bound, sees buyCost and margin null on its own calls and no supplier",
    async (key) => {
      const { calls } = await walkPages(server, `/v1/calls${query({ pageSize: 1000, ...window })}`, key);
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) {
        expect([c.buyCost, c.margin]).toEqual([null, null]);
        expect("supplierId" in c).toBe(false);
      }
      const detail = await api(server, `/v1/calls/${calls[0].id}`, { key });
      expect(detail.body).toMatchObject({ buyCost: null, margin: null, buyRate: null });
      expect(detail.text).not.toContain(server.supplierId);
      const refused = await api(server, `/v1/calls${query({ supplierId: server.supplierId })}`, { key });
      expect(refused.status).toBe(403);
    },
  );

  it.each(["platformCost"] as const)(
    "%s sees buyCost, margin and supplierId, and buyRate on the single call",
    async (key) => {
      const { calls } = await walkPages(server, `/v1/calls${query({ pageSize: 1000, ...window })}`, key);
      let withSupplier = 0;
      for (const c of calls) {
        const call = callWithCostSchema.strict().parse(c);
        if (call.buyCost !== null) {
          withSupplier++;
          expect(call.supplierId).toBe(server.supplierId);
          // margin = price - buyCost, exactly (compared in micros, never as a float difference).
          expect(parseMicros(call.margin!)).toBe(parseMicros(call.price) - parseMicros(call.buyCost));
        } else {
          expect(call.margin).toBeNull();
        }
      }
      expect(withSupplier).toBeGreaterThan(0);
      const sample = calls.find((c) => c.supplierId !== null)!;
      const detail = await api(server, `/v1/calls/${sample.id}`, { key });
      const parsed = callDetailWithCostSchema.strict().parse(detail.body);
      expect(parsed.buyRate).not.toBeNull();
      // The supplier filter lists exactly the calls that supplier carried, through every page.
      const carried = await walkPages(
        server,
        `/v1/calls${query({ pageSize: 7, supplierId: server.supplierId, ...window })}`,
        key,
      );
      expect(carried.calls.map((c) => c.id)).toEqual(
        calls.filter((c) => c.supplierId === server.supplierId).map((c) => c.id),
      );
    },
  );

  it("money is a number with at most 6 decimals, times are ISO 8601 UTC", async () => {
    const { calls } = await walkPages(server, `/v1/calls?pageSize=1000`, "costA");
    for (const c of calls) {
      for (const field of ["price", "buyCost", "margin"]) {
        const v = c[field];
        if (v === null) continue;
        expect(typeof v).toBe("number");
        expect(String(v)).toMatch(/^-?\d+(\.\d{1,6})?$/);
      }
      expect(c.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(c.endTime).toMatch(/Z$/);
    }
    balanceSchema.parse((await api(server, "/v1/balances", { key: "readA" })).body);
    rateSchema.parse((await api(server, "/v1/rates?destination=4420", { key: "readA" })).body);
    accountListSchema.parse((await api(server, "/v1/accounts", { key: "platformRead" })).body);
  });

  it("the CSV export carries no cost column for a calls:read key", async (ctx) => {
    const res = await api(server, `/v1/calls/export${query(window)}`, { key: "readA" });
    if (res.status === 404) ctx.skip(); // the portal's export is not built
    expect(res.status).toBe(200);
    const header = res.text.split("\n")[0];
    expect(header).not.toMatch(/buy|margin|supplier/i);
    expect(res.text).not.toContain(server.supplierId);
  });
});
