import { describe, expect, it } from "vitest";
import { COST_FIELD_NAMES } from "@/lib/calls/schemas";
import { parseMicros } from "@/lib/money/micros";
import {
  USAGE_GROUP_BY,
  usageReportSchema,
  usageRowSchema,
  usageRowWithCostSchema,
  usageTotalSchema,
  usageTotalWithCostSchema,
  type UsageReport,
} from "@/lib/usage/schemas";
import { ZONE_CALL_STARTS } from "./fixtures/calls";
import { allKeys, api, apiServers, query, walkPages, type ApiServer, type KeyName, type ListedCall } from "./helpers";

// GET /v1/usage over HTTP on both engines: totals equal the sums over every page of GET /v1/calls with
// the same filters (to the micro), cost fields only for calls:read_cost keys, tenant isolation, time
// zone buckets (DST days, a +05:30 midnight) and the 400/403/404 answers.

type Filters = Record<string, string | undefined>;
const READ_ONLY: KeyName[] = ["readA", "readB", "platformRead"];
const WITH_COST: KeyName[] = ["costA", "costB", "platformCost"];

async function usage(server: ApiServer, key: KeyName, params: Filters) {
  return api<UsageReport>(server, `/v1/usage${query(params)}`, { key });
}

interface Sums {
  calls: number;
  billedSeconds: number;
  price: bigint;
  buyCost: bigint;
  margin: bigint;
}

/** Sums per currency over the listed calls, in exact micros. */
function sumCalls(calls: ListedCall[]): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const c of calls) {
    const s = out.get(c.currency as string) ?? { calls: 0, billedSeconds: 0, price: 0n, buyCost: 0n, margin: 0n };
    s.calls += 1;
    s.billedSeconds += c.billDuration as number;
    s.price += parseMicros(c.price as number);
    if (c.buyCost !== undefined && c.buyCost !== null) s.buyCost += parseMicros(c.buyCost as number);
    if (c.margin !== undefined && c.margin !== null) s.margin += parseMicros(c.margin as number);
    out.set(c.currency as string, s);
  }
  return out;
}

function sumTotals(report: UsageReport): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const t of report.totals) {
    out.set(t.currency, {
      calls: t.calls,
      billedSeconds: t.billedSeconds,
      price: parseMicros(t.price),
      buyCost: "buyCost" in t ? parseMicros(t.buyCost) : 0n,
      margin: "margin" in t ? parseMicros(t.margin) : 0n,
    });
  }
  return out;
}

describe.each(apiServers())("GET /v1/usage on $engine", (server) => {
  const window = { "startTime[gte]": server.windowStart, "startTime[lte]": server.windowEnd };
  // Ragged bounds (not on whole hours or seconds) exercise the partial-hour reads from calls.
  const callTimes = server.calls
    .filter((c) => c.group === "a" || c.group === "b")
    .map((c) => c.startTime)
    .sort();
  const ragged = {
    "startTime[gte]": new Date(Date.parse(callTimes[20]) + 123).toISOString(),
    "startTime[lte]": callTimes[150],
  };
  const FILTERS: Filters[] = [
    window,
    ragged,
    { ...window, direction: "inbound" },
    { ...window, hangupCause: "normal_CLEARING" },
    { ...window, to: "4420" },
    { ...ragged, direction: "outbound", to: "%" },
    { ...window, toPrefix: "+4420" },
    { ...window, from: "1555000001" },
    { ...window, uuid: "fixture-a-0007" },
    { ...window, id: server.calls.find((c) => c.group === "b")!.id },
    { ...window, billingGroupId: server.groups.a.id },
  ];

  it.each([...READ_ONLY, ...WITH_COST])(
    "totals equal the sums over every page of /v1/calls exactly, for %s",
    async (key) => {
      for (const filters of FILTERS) {
        const { calls } = await walkPages(server, `/v1/calls${query({ pageSize: 1000, ...filters })}`, key);
        if (filters === window) expect(calls.length).toBeGreaterThan(0);
        for (const groupBy of ["day", "destination", "hangupCause"]) {
          const res = await usage(server, key, { ...filters, groupBy });
          expect(res.status, res.text).toBe(200);
          expect(sumTotals(res.body), `${key} ${JSON.stringify(filters)} ${groupBy}`).toEqual(sumCalls(calls));
          // Rows add up to the totals (per currency).
          const rowCalls = new Map<string, number>();
          for (const r of res.body.rows) rowCalls.set(r.currency, (rowCalls.get(r.currency) ?? 0) + r.calls);
          expect(Object.fromEntries(rowCalls)).toEqual(
            Object.fromEntries(res.body.totals.map((t) => [t.currency, t.calls])),
          );
        }
      }
    },
  );

  it("counts answered and unrated calls as the call details say", async () => {
    const { calls } = await walkPages(server, `/v1/calls${query({ pageSize: 1000, ...window })}`, "costB");
    let answered = 0;
    let unrated = 0;
    for (const c of calls) {
      const detail = await api<{ answerTime: string | null; rated: boolean }>(server, `/v1/calls/${c.id}`, {
        key: "costB",
      });
      if (detail.body.answerTime !== null) answered++;
      if (!detail.body.rated) unrated++;
    }
    const res = await usage(server, "costB", { ...window, groupBy: "direction" });
    expect(res.body.totals).toEqual([
      expect.objectContaining({ currency: "EUR", calls: calls.length, answeredCalls: answered, unratedCalls: unrated }),
    ]);
  });

  it.each(READ_ONLY)(
    "a deep scan of every grouping for %s finds no cost field; supplier grouping is 403",
    async (key) => {
      const bodies: unknown[] = [];
      for (const groupBy of USAGE_GROUP_BY.filter((g) => g !== "supplier")) {
        for (const filters of [{}, window]) {
          const res = await usage(server, key, { ...filters, groupBy });
          expect(res.status).toBe(200);
          usageReportSchema.parse(res.body);
          for (const r of res.body.rows) usageRowSchema.strict().parse(r);
          for (const t of res.body.totals) usageTotalSchema.strict().parse(t);
          bodies.push(res.body);
        }
      }
      const supplier = await usage(server, key, { groupBy: "supplier" });
      expect(supplier.status).toBe(403);
      expect(supplier.body).toMatchObject({ code: "insufficient_scope" });
      bodies.push(supplier.body);
      const found = allKeys(bodies);
      for (const name of [...COST_FIELD_NAMES, "buyCost", "margin"]) expect(found.has(name), name).toBe(false);
      expect(JSON.stringify(bodies)).not.toMatch(/buyCost|margin/);
      expect(JSON.stringify(bodies)).not.toContain(server.supplierId);
    },
  );

  // The operator's buy cost and suppliers are the platform's cost view only (issue 32, docs/contract.md §21): costA and
  // costB, bound to a group, used to get them here.
  it.each(["platformCost"] as const)(
    "%s gets buyCost and margin in rows and totals, and the supplier grouping",
    async (key) => {
      const res = await usage(server, key, { ...window, groupBy: "supplier" });
      expect(res.status).toBe(200);
      for (const r of res.body.rows) usageRowWithCostSchema.strict().parse(r);
      for (const t of res.body.totals) usageTotalWithCostSchema.strict().parse(t);
      expect([...new Set(res.body.rows.map((r) => r.key))]).toEqual([server.supplierId, null]);
      expect(res.body.rows[0].label).toBe("Carrier One");
    },
  );

  it.each(["costA", "costB"] as const)(
    "%s, a bound cost key, gets no operator's buy cost or margin, and the supplier grouping is 403",
    async (key) => {
      const res = await usage(server, key, { ...window, groupBy: "day" });
      expect(res.status).toBe(200);
      expect(res.body.rows.length).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/buyCost|margin/);
      expect((await usage(server, key, { ...window, groupBy: "supplier" })).status).toBe(403);
    },
  );

  it("a bound key sees only its group (another group's account: empty, as in /v1/calls); a platform key narrows with account", async () => {
    const own = await usage(server, "readA", { groupBy: "account" });
    expect(own.body.rows.map((r) => r.key)).toEqual([server.groups.a.id]);
    expect(own.body.rows[0].label).toBe(server.groups.a.name);
    for (const name of ["account", "billingGroupId"]) {
      const other = await usage(server, "readA", { groupBy: "account", [name]: server.groups.b.id });
      expect(other.status).toBe(200);
      expect(other.body).toMatchObject({ rows: [], totals: [] });
      expect(other.text).not.toContain(server.groups.b.name);
    }
    expect((await usage(server, "platformRead", { groupBy: "day", account: "bg_unknown" })).body.rows).toEqual([]);
    for (const g of ["a", "b"] as const) {
      const narrowed = await usage(server, "platformRead", {
        ...window,
        groupBy: "destination",
        account: server.groups[g].id,
      });
      const bound = await usage(server, g === "a" ? "readA" : "readB", { ...window, groupBy: "destination" });
      expect(narrowed.body).toEqual(bound.body);
    }
    const all = await usage(server, "platformRead", { ...window, groupBy: "account" });
    expect(all.body.rows.map((r) => r.key).sort()).toEqual([server.groups.a.id, server.groups.b.id].sort());
    // Currencies are never added together.
    expect(all.body.totals.map((t) => t.currency)).toEqual(["EUR", "USD"]);
  });

  it("buckets days in the time zone: DST changes in New York and London, a +05:30 midnight in Kolkata", async () => {
    const days = async (timeZone: string, extra: Filters = {}) => {
      const res = await usage(server, "readZones", { groupBy: "day", timeZone, ...extra });
      expect(res.status, res.text).toBe(200);
      expect(res.body.timeZone).toBe(timeZone);
      return Object.fromEntries(res.body.rows.map((r) => [r.key, r.calls]));
    };
    expect(ZONE_CALL_STARTS).toHaveLength(8);
    expect(await days("UTC")).toEqual({
      "2026-03-08": 2,
      "2026-03-09": 2,
      "2026-03-10": 2,
      "2026-03-28": 1,
      "2026-03-29": 1,
    });
    expect(await days("America/New_York")).toEqual({
      "2026-03-07": 1,
      "2026-03-08": 2, // 23 hours long
      "2026-03-09": 1,
      "2026-03-10": 2,
      "2026-03-28": 1,
      "2026-03-29": 1,
    });
    expect(await days("Europe/London")).toEqual({
      "2026-03-08": 2,
      "2026-03-09": 2,
      "2026-03-10": 2,
      "2026-03-28": 1,
      "2026-03-30": 1,
    });
    expect(await days("Asia/Kolkata")).toEqual({
      "2026-03-08": 2,
      "2026-03-09": 2,
      "2026-03-10": 1,
      "2026-03-11": 1,
      "2026-03-29": 1,
      "2026-03-30": 1,
    });
    // A range ending inside the cut hour.
    expect(
      await days("Asia/Kolkata", {
        "startTime[gte]": "2026-03-10T18:00:00Z",
        "startTime[lte]": "2026-03-10T18:29:59.999Z",
      }),
    ).toEqual({ "2026-03-10": 1 });
    const months = await usage(server, "readZones", { groupBy: "month", timeZone: "Pacific/Kiritimati" });
    expect(months.body.rows.map((r) => [r.key, r.calls])).toEqual([["2026-03", 8]]);
  });

  it("answers 400 invalid_parameter naming the parameter, 401 without a key, 403 without calls:read", async () => {
    const bad: [Filters, string][] = [
      [{ groupBy: "week" }, "groupBy"],
      [{ timeZone: "Mars/Olympus_Mons" }, "timeZone"],
      [{ timeZone: "+05:30" }, "timeZone"],
      [{ timeZone: "" }, "timeZone"],
      [{ "startTime[gte]": "yesterday" }, "startTime[gte]"],
      [{ "startTime[gte]": "2026-02-01", "startTime[lte]": "2026-01-01" }, "startTime[gte]"],
      [{ direction: "sideways" }, "direction"],
      [{ to: "4".repeat(65) }, "to"],
      [{ toPrefix: "44a" }, "toPrefix"],
      [{ id: "12x" }, "id"],
      [{ account: "bg_a", billingGroupId: "bg_b" }, "account"],
    ];
    for (const [params, param] of bad) {
      const res = await usage(server, "readA", params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body, JSON.stringify(params)).toMatchObject({
        code: "invalid_parameter",
        errors: [expect.objectContaining({ param })],
      });
    }
    expect((await api(server, "/v1/usage")).status).toBe(401);
    const ingestOnly = await usage(server, "ingestA", {});
    expect(ingestOnly.status).toBe(403);
    expect(ingestOnly.body).toMatchObject({ code: "insufficient_scope" });
  });
});
