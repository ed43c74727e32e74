import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/operations";
import type { Export } from "@/lib/exports/schemas";
import { waitUntil } from "@/lib/testing/wait-until";
import { api, apiServers, query, type ApiResponse, type ApiServer } from "./helpers";
import type { TierKeyName, TierName } from "./fixtures/tiers";

// Reseller tiers (issue 32, docs/contract.md §21): operator > r1 > r2 > c, and an unrelated root u
// (tests/api/fixtures/tiers.ts). Every read operation, asked by a cost key of each tier, answers within the key's
// subtree only, and no answer (JSON or CSV) to a bound key holds the supplier or an operator's buy cost or rate.

const READS = OPERATIONS.filter((op) => op.method === "GET" && op.scope !== null);
const SUBTREE: Record<TierName, TierName[]> = { r1: ["r1", "r2", "c"], r2: ["r2", "c"], c: ["c"], u: ["u"] };
const KEY_TIER: Record<Exclude<TierKeyName, "r1Read">, TierName> = {
  r1Cost: "r1",
  r2Cost: "r2",
  cCost: "c",
  uCost: "u",
};
const SUPPLIER_NAME = "Carrier One";

function ask(
  server: ApiServer,
  key: TierKeyName,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return api(server, path, {
    authorization: `Bearer ${server.tiers.keys[key]}`,
    ...init,
  });
}

/** The answer without what echoes the request (a problem's detail and errors), as text to search. */
function answerText(res: ApiResponse): string {
  if (res.status < 400 || !res.body || typeof res.body !== "object") return res.text;
  const rest = { ...(res.body as Record<string, unknown>) };
  delete rest.detail;
  delete rest.errors;
  return JSON.stringify(rest);
}

interface ListedCall {
  id: string;
  billingGroupId: string;
  buyCost?: number | null;
  margin?: number | null;
  supplierId?: string | null;
}

describe.each(apiServers())("reseller reach on $engine", (server: ApiServer) => {
  const { groups, calls } = server.tiers;
  const callOf = (tier: TierName) => calls.find((c) => c.tier === tier)!;
  const month = { "startTime[gte]": "2026-02-01T00:00:00Z", "startTime[lte]": "2026-02-28T00:00:00Z" };

  it(
    "walks every read as each tier's cost key: its subtree only, never the operator's cost or supplier",
    { timeout: 180_000 },
    async () => {
      const leaks: string[] = [];
      const forbidden = [server.supplierId, SUPPLIER_NAME, ...server.tiers.operatorFigures];
      let answered = 0;
      for (const [key, tier] of Object.entries(KEY_TIER) as [TierKeyName, TierName][]) {
        const outside = (Object.keys(groups) as TierName[]).filter((t) => !SUBTREE[tier].includes(t));
        for (const op of READS) {
          const queryNames = op.query ? Object.keys(op.query.shape) : [];
          const paths = !op.path.includes("{")
            ? [op.path]
            : op.path.startsWith("/v1/calls/{id}")
              ? calls.map((c) => op.path.replace("{id}", c.id))
              : op.path.startsWith("/v1/accounts/{id}")
                ? Object.values(groups).map((g) => op.path.replace("{id}", g))
                : op.path.startsWith("/v1/suppliers/{id}")
                  ? [op.path.replace("{id}", server.supplierId)]
                  : [op.path.replace(/\{[^}]+\}/g, "x_nothing")];
          for (const path of paths) {
            const namings = [""];
            for (const g of Object.values(groups)) {
              const q = ["account", "billingGroupId"].filter((n) => queryNames.includes(n));
              if (q.length > 0) namings.push(q.map((n) => `${n}=${g}`).join("&"));
            }
            for (const naming of namings) {
              const extra = op.path === "/v1/rates" ? "destination=442071234567" : "";
              const url = `${path}${[naming, extra].some(Boolean) ? "?" : ""}${[naming, extra].filter(Boolean).join("&")}`;
              const res = await ask(server, key, url);
              if (res.status === 200) answered++;
              const text = answerText(res);
              for (const t of outside)
                if (text.includes(groups[t])) leaks.push(`${key} ${url} -> ${res.status} holds ${t}`);
              for (const f of forbidden) if (text.includes(f)) leaks.push(`${key} ${url} -> ${res.status} holds ${f}`);
            }
          }
        }
      }
      expect(leaks).toEqual([]);
      expect(answered).toBeGreaterThan(50);
    },
  );

  it("lists exactly the subtree's accounts, calls and usage for each tier", async () => {
    for (const [key, tier] of Object.entries(KEY_TIER) as [TierKeyName, TierName][]) {
      const want = SUBTREE[tier].map((t) => groups[t]).sort();
      const accounts = await ask(server, key, "/v1/accounts");
      expect((accounts.body as { accounts: { id: string }[] }).accounts.map((a) => a.id).sort(), key).toEqual(want);
      const listed = await ask(server, key, `/v1/calls${query({ pageSize: 100, ...month })}`);
      const listedCalls = (listed.body as { calls: ListedCall[] }).calls;
      expect(listedCalls.map((c) => c.billingGroupId).sort(), key).toEqual(want);
      const usage = await ask(server, key, `/v1/usage${query({ groupBy: "account", ...month })}`);
      expect((usage.body as { rows: { key: string }[] }).rows.map((r) => r.key).sort(), key).toEqual(want);
      // Naming an account of the subtree narrows to it; one outside answers an empty page.
      for (const t of Object.keys(groups) as TierName[]) {
        const one = await ask(server, key, `/v1/calls${query({ billingGroupId: groups[t], ...month })}`);
        const ids = (one.body as { calls: ListedCall[] }).calls.map((c) => c.billingGroupId);
        expect(ids, `${key} naming ${t}`).toEqual(SUBTREE[tier].includes(t) ? [groups[t]] : []);
      }
    }
  });

  it("shows each tier its own buy cost and margin: the charges it pays its parent, none on its own calls", async () => {
    // [buyCost, margin, buyRate] per call's account (fixtures/tiers.ts): on c's call r1 pays 0.700001 and its child on
    // the path, r2, pays it 2.000002; r2 pays 2.000002 and c pays it the call's price, 3.000003.
    const expected: Record<string, Record<string, [number | null, number | null, number | null]>> = {
      r1Cost: {
        c: [0.700001, 1.300001, 1.111117],
        r2: [4.000004, 1.499996, 4.100003],
        r1: [null, null, null],
      },
      r2Cost: { c: [2.000002, 1.000001, 2.222221], r2: [null, null, null] },
      cCost: { c: [null, null, null] },
      uCost: { u: [null, null, null] },
    };
    for (const [key, byTier] of Object.entries(expected) as [TierKeyName, (typeof expected)[string]][]) {
      const listed = await ask(server, key, `/v1/calls${query({ pageSize: 100, ...month })}`);
      const listedCalls = (listed.body as { calls: ListedCall[] }).calls;
      const csv = (await ask(server, key, `/v1/calls/export${query(month)}`)).text;
      const [header, ...lines] = csv.trim().split("\r\n");
      expect(header.endsWith(",buyCost,margin"), key).toBe(true);
      for (const [tier, [buyCost, margin, buyRate]] of Object.entries(byTier)) {
        const call = callOf(tier as TierName);
        const inList = listedCalls.find((c) => c.id === call.id)!;
        expect([inList.buyCost, inList.margin], `${key} lists ${tier}`).toEqual([buyCost, margin]);
        expect("supplierId" in inList).toBe(false);
        const detail = (await ask(server, key, `/v1/calls/${call.id}`)).body as ListedCall & { buyRate: number | null };
        expect([detail.buyCost, detail.margin, detail.buyRate], `${key} detail of ${tier}`).toEqual([
          buyCost,
          margin,
          buyRate,
        ]);
        const line = lines.find((l) => l.startsWith(`${call.id},`))!;
        expect(line.endsWith(`,${buyCost ?? ""},${margin ?? ""}`), `${key} CSV of ${tier}: ${line}`).toBe(true);
      }
    }
    // The platform still sees the operator's: buy cost, supplier, margin over the carrier's cost.
    const platform = await api(server, `/v1/calls/${callOf("c").id}`, { key: "platformCost" });
    expect(platform.body).toMatchObject({ buyCost: 933.333331, supplierId: server.supplierId, margin: -930.333328 });
    // A tier's key without the cost scope sees no cost field at all.
    const read = await ask(server, "r1Read", `/v1/calls/${callOf("c").id}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toMatch(/buyCost|margin|buyRate|supplierId/);
  });

  it("sums each tier's own buy cost and margin in GET /v1/usage, as its calls show them", async () => {
    type Row = { key: string; price: number; buyCost?: number; margin?: number };
    const usage = async (key: TierKeyName, groupBy: string) =>
      (await ask(server, key, `/v1/usage${query({ groupBy, ...month })}`)).body as { rows: Row[]; totals: Row[] };
    const r1 = await usage("r1Cost", "account");
    const figures = (rows: Row[], tier: TierName) => {
      const row = rows.find((r) => r.key === groups[tier])!;
      return [row.buyCost, row.margin];
    };
    // The calls' own figures (the test above): summed, its own calls count no cost.
    expect(figures(r1.rows, "c")).toEqual([0.700001, 1.300001]);
    expect(figures(r1.rows, "r2")).toEqual([4.000004, 1.499996]);
    expect(figures(r1.rows, "r1")).toEqual([0, 0]);
    expect([r1.totals[0].buyCost, r1.totals[0].margin]).toEqual([4.700005, 2.799997]);
    const r2 = await usage("r2Cost", "destination");
    expect([r2.totals[0].buyCost, r2.totals[0].margin]).toEqual([2.000002, 1.000001]);
    // A customer (no children) has no cost of its own to show: the fields are absent.
    const c = await usage("cCost", "account");
    expect(c.rows).toHaveLength(1);
    expect(c.rows[0]).not.toHaveProperty("buyCost");
    expect(c.totals[0]).not.toHaveProperty("margin");
  });

  it("refuses the supplier filter and grouping to a bound cost key: suppliers are the operator's", async () => {
    for (const path of ["/v1/calls", "/v1/calls/export", "/v1/usage"]) {
      const refused = await ask(server, "r1Cost", `${path}${query({ supplierId: server.supplierId })}`);
      expect(refused.status, path).toBe(403);
    }
    expect((await ask(server, "r1Cost", "/v1/usage?groupBy=supplier")).status).toBe(403);
  });

  it("writes a reseller's background export over its subtree, with its own figures", { timeout: 90_000 }, async () => {
    const started = await ask(server, "r1Cost", "/v1/exports", {
      body: { filters: month },
      headers: { "Idempotency-Key": randomUUID() },
    });
    expect(started.status).toBe(202);
    const id = (started.body as Export).id;
    let done: Export | undefined;
    await waitUntil(
      async () => {
        done = (await ask(server, "r1Cost", `/v1/exports/${id}`)).body as Export;
        return done.status === "succeeded" || done.status === "failed";
      },
      "the export to finish",
      60_000,
    );
    expect(done!.status).toBe("succeeded");
    const file = await ask(server, "r1Cost", done!.download!.url);
    const sync = await ask(server, "r1Cost", `/v1/calls/export${query(month)}`);
    expect(file.text).toBe(sync.text);
    expect(file.text.trim().split("\r\n")).toHaveLength(4);
    for (const f of [server.supplierId, SUPPLIER_NAME, ...server.tiers.operatorFigures])
      expect(file.text).not.toContain(f);
  });
});
