import { beforeAll, describe, expect, it } from "vitest";
import { claimCallUuids } from "@/lib/testing/claim-call-uuids";
import { storedCallValues } from "@/lib/testing/stored-call-values";
import { testPrincipal } from "@/lib/testing/test-principal";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { createSupplier } from "@/lib/rating/suppliers";
import { calls } from "@/lib/db/schema";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { decodeCursor, encodeCursor } from "./cursor";
import { nextPageLink } from "@/lib/http/next-page-link";
import { CALL_PAGE_FILTERS, callFiltersFromQuery, escapeLike, listCalls, type CallFilters } from "./list-calls";
import { serializeCall, serializeCallDetail } from "./serialize-call";
import type { StoredCall } from "./stored-call";
import { COST_FIELD_NAMES, listCallsQuerySchema } from "./schemas";

process.env.CURSOR_SECRET ??= "unit-test-cursor-secret";

const principal = testPrincipal;

describe("cursor", () => {
  const position = { startTime: new Date("2026-01-05T10:00:00.123Z"), id: 42n };

  it("round-trips a position for the same filters", () => {
    expect(decodeCursor(encodeCursor(position, "h1"), "h1")).toEqual(position);
  });

  it("refuses other filters, tampering and garbage with invalid_cursor", () => {
    const cursor = encodeCursor(position, "h1");
    const [payload, signature] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify({ t: 0, i: "1", h: "h1" })).toString("base64url");
    for (const [c, h] of [
      [cursor, "h2"],
      [`${forged}.${signature}`, "h1"],
      [`${payload}.${signature.slice(1)}`, "h1"],
      ["", "h1"],
      ["a.b.c", "h1"],
      ["x".repeat(600), "h1"],
    ]) {
      expect(() => decodeCursor(c, h)).toThrowError(expect.objectContaining({ code: "invalid_cursor", status: 400 }));
    }
  });
});

describe("escapeLike", () => {
  it("makes %, _ and backslash literal", () => {
    expect(escapeLike("4%2_0\\")).toBe("4\\%2\\_0\\\\");
    expect(escapeLike("4420")).toBe("4420");
  });
});

const row = (overrides: Partial<StoredCall> = {}): StoredCall => ({
  id: 7n,
  createdAt: new Date(),
  ...storedCallValues(),
  ...overrides,
});

describe("serializeCall", () => {
  it("omits every cost field (absent, not null) without calls:read_cost", () => {
    for (const out of [serializeCall(row(), principal("bg_a")), serializeCallDetail(row(), principal("bg_a"))]) {
      for (const name of COST_FIELD_NAMES) expect(name in out, name).toBe(false);
    }
  });

  it("adds the operator's cost fields for the platform's calls:read_cost, with margin = price - buyCost exactly", () => {
    const out = serializeCallDetail(row(), principal(null, ["calls:read_cost", "calls:read"]));
    expect(out).toMatchObject({
      price: 100.000001,
      buyCost: 300.000007,
      margin: -200.000006,
      supplierId: "sup_1",
      buyRate: 0.004,
    });
    expect(out).toMatchObject({
      pdd: 1.25,
      sellRate: 0.012,
      billingIncrement: "60/60",
      answerTime: "2026-01-05T10:00:02.000Z",
      id: "7",
    });
  });

  it("gives a reseller's cost view its own tier's figures and never the operator's cost or supplier", () => {
    const reseller = principal("bg_r", ["calls:read_cost", "calls:read"]);
    // A customer's call: the reseller pays its parent 40.000002 for it and its child paid it 100.000001 (the price).
    const tier = { tierCost: "40000002", tierSell: "100000001", tierRate: "5000" };
    const out = serializeCallDetail({ ...row(), ...tier }, reseller);
    expect(out).toMatchObject({ buyCost: 40.000002, margin: 59.999999, buyRate: 0.005 });
    expect("supplierId" in out).toBe(false);
    expect(JSON.stringify(out)).not.toMatch(/300\.000007|sup_1|0\.004/);
    // Its own call (no charge of its own tier): it is the customer there, nothing to show.
    const own = serializeCall({ ...row(), tierCost: null, tierSell: null, tierRate: null }, reseller);
    expect(own).toMatchObject({ buyCost: null, margin: null });
    expect("supplierId" in own).toBe(false);
  });
});

describeOnEngines("listCalls", (handle) => {
  let groupA: string;
  let groupB: string;
  let carrier: string;
  beforeAll(async () => {
    groupA = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    groupB = (await createBillingGroup(handle().db, { name: "B", currency: "USD" })).id;
    carrier = (await createSupplier(handle().db, { name: "Carrier" })).id;
    const base = Date.parse("2026-01-05T00:00:00Z");
    const tos = ["44%1", "44_1", "4411", "44\\1"];
    await handle()
      .db.insert(calls)
      .values(
        Array.from({ length: 24 }, (_, i) => {
          return {
            ...storedCallValues(),
            supplierId: i % 6 === 0 ? carrier : null,
            uuid: `u-${i}`,
            billingGroupId: i % 2 ? groupA : groupB,
            toNumber: tos[i % 4],
            hangupCause: i % 3 ? "NORMAL_CLEARING" : "user_busy",
            startTime: new Date(base + Math.floor(i / 4) * 1000),
          };
        }),
      );
  });

  async function all(p: Principal, filters: CallFilters, pageSize: number) {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await listCalls(handle().db, p, filters, { pageSize, cursor });
      ids.push(...page.page.map((c) => c.id));
      if (!page.hasMore) return ids;
      cursor = page.nextCursor;
    }
    throw new Error("did not end");
  }

  it("pages a bound key through its group only, newest first, ties by id", async () => {
    const every = await all(principal(groupA), {}, 24);
    expect(every).toHaveLength(12);
    for (const size of [1, 5]) expect(await all(principal(groupA), {}, size)).toEqual(every);
    expect(await all(principal(null), {}, 7)).toHaveLength(24);
  });

  it("matches to literally and hangupCause case-insensitively", async () => {
    expect(await all(principal(null), { to: "%" }, 5)).toHaveLength(6);
    expect(await all(principal(null), { to: "_" }, 5)).toHaveLength(6);
    expect(await all(principal(null), { to: "\\" }, 5)).toHaveLength(6);
    expect(await all(principal(null), { hangupCause: "USER_busy" }, 5)).toHaveLength(8);
  });

  it("filters by supplier for cost principals only, and binds the cursor to it", async () => {
    const cost = principal(null, ["calls:read_cost"]);
    const carried = await all(cost, { supplierId: carrier }, 3);
    expect(carried).toHaveLength(4);
    expect(
      await all(principal(null, ["calls:read_cost"]), { supplierId: carrier, billingGroupId: groupB }, 3),
    ).toHaveLength(4);
    expect(
      await all(principal(null, ["calls:read_cost"]), { supplierId: carrier, billingGroupId: groupA }, 3),
    ).toHaveLength(0);
    // Suppliers are the operator's: a bound key's cost view (a reseller's) may not filter by one.
    await expect(
      listCalls(handle().db, principal(groupB, ["calls:read_cost"]), { supplierId: carrier }, { pageSize: 5 }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
    await expect(
      listCalls(handle().db, principal(null), { supplierId: carrier }, { pageSize: 5 }),
    ).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    const first = await listCalls(handle().db, cost, { supplierId: carrier }, { pageSize: 1 });
    await expect(listCalls(handle().db, cost, {}, { pageSize: 1, cursor: first.nextCursor })).rejects.toMatchObject({
      code: "invalid_cursor",
    });
  });

  it("refuses a cursor on other filters or another group", async () => {
    const first = await listCalls(handle().db, principal(groupA), {}, { pageSize: 2 });
    await expect(
      listCalls(handle().db, principal(groupB), {}, { pageSize: 2, cursor: first.nextCursor }),
    ).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(
      listCalls(handle().db, principal(groupA), { direction: "inbound" }, { pageSize: 2, cursor: first.nextCursor }),
    ).rejects.toMatchObject({
      code: "invalid_cursor",
    });
  });
});

describe("search filters of the query", () => {
  it("reads caller and destination prefixes without the +, and refuses non-digits", () => {
    const q = listCallsQuerySchema.parse({
      from: "+1555",
      toPrefix: "+44",
      id: "12",
      uuid: "abc-1",
      billingGroupId: "bg_x",
    });
    expect(callFiltersFromQuery(q)).toMatchObject({
      fromPrefix: "1555",
      toPrefix: "44",
      id: "12",
      uuid: "abc-1",
      billingGroupId: "bg_x",
    });
    for (const bad of [{ from: "15a" }, { toPrefix: "44%" }, { id: "-1" }, { id: "1".repeat(20) }]) {
      expect(listCallsQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(callFiltersFromQuery(listCallsQuerySchema.parse({ from: "", id: "" }))).toMatchObject({
      fromPrefix: undefined,
      id: undefined,
    });
  });

  it("carries every new filter in nextPageUrl", () => {
    const q = listCallsQuerySchema.parse({
      pageSize: "5",
      from: "1555",
      toPrefix: "44",
      id: "3",
      uuid: "u",
      billingGroupId: "bg_x",
    });
    const url = new URL(nextPageLink("http://h", "/v1/calls", q, CALL_PAGE_FILTERS, "c.s")!);
    for (const [k, v] of Object.entries({
      from: "1555",
      toPrefix: "44",
      id: "3",
      uuid: "u",
      billingGroupId: "bg_x",
      cursor: "c.s",
    })) {
      expect(url.searchParams.get(k), k).toBe(v);
    }
  });
});

describeOnEngines("listCalls search", (handle) => {
  let groupA: string;
  let groupB: string;
  const ids: bigint[] = [];
  beforeAll(async () => {
    groupA = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    groupB = (await createBillingGroup(handle().db, { name: "B", currency: "USD" })).id;
    const base = Date.parse("2026-01-05T00:00:00Z");
    const rows = await handle()
      .db.insert(calls)
      .values(
        Array.from({ length: 12 }, (_, i) => ({
          ...storedCallValues(),
          supplierId: null,
          uuid: `s-${i}`,
          billingGroupId: i % 2 ? groupA : groupB,
          fromNumber: ["15550001", "15550002", "4930111", "1%55"][i % 4],
          toNumber: ["442071", "4420%", "33144", "1442"][i % 4],
          startTime: new Date(base + i * 1000),
        })),
      )
      .returning({ id: calls.id });
    ids.push(...rows.map((r) => r.id));
    await claimCallUuids(handle().db);
  });

  const uuids = async (p: Principal, filters: CallFilters) =>
    (await listCalls(handle().db, p, filters, { pageSize: 50 })).page.map((c) => c.uuid).sort();

  it("finds calls by caller prefix (a full number exactly) and destination prefix, literally", async () => {
    expect(await uuids(principal(null), { fromPrefix: "1555000" })).toEqual(["s-0", "s-1", "s-4", "s-5", "s-8", "s-9"]);
    expect(await uuids(principal(null), { fromPrefix: "15550002" })).toEqual(["s-1", "s-5", "s-9"]);
    expect(await uuids(principal(null), { fromPrefix: "1%" })).toEqual(["s-11", "s-3", "s-7"]);
    expect(await uuids(principal(null), { toPrefix: "44" })).toEqual(["s-0", "s-1", "s-4", "s-5", "s-8", "s-9"].sort());
    // a substring that is not a prefix is not found by toPrefix
    expect(await uuids(principal(null), { toPrefix: "442" })).toEqual(
      ["s-0", "s-1", "s-4", "s-5", "s-8", "s-9"].sort(),
    );
    expect(await uuids(principal(null), { toPrefix: "1442" })).toEqual(["s-11", "s-3", "s-7"]);
    expect(await uuids(principal(null), { toPrefix: "4420%" })).toEqual(["s-1", "s-5", "s-9"]);
  });

  it("finds one call by id or uuid, within the key's reach only", async () => {
    expect(await uuids(principal(null), { id: String(ids[3]) })).toEqual(["s-3"]);
    expect(await uuids(principal(groupA), { id: String(ids[3]) })).toEqual(["s-3"]);
    expect(await uuids(principal(groupB), { id: String(ids[3]) })).toEqual([]);
    expect(await uuids(principal(null), { id: "9".repeat(19) })).toEqual([]);
    expect(await uuids(principal(groupB), { uuid: "s-4" })).toEqual(["s-4"]);
    expect(await uuids(principal(groupA), { uuid: "s-4" })).toEqual([]);
  });

  it("narrows a platform key to one account; a bound key asking for another group sees nothing", async () => {
    const list = await listCalls(handle().db, principal(null), { billingGroupId: groupA }, { pageSize: 50 });
    expect(list.page).toHaveLength(6);
    expect(new Set(list.page.map((c) => c.billingGroupId))).toEqual(new Set([groupA]));
    expect(await uuids(principal(groupB), { billingGroupId: groupA })).toEqual([]);
  });

  it("binds the cursor to the new filters", async () => {
    const first = await listCalls(handle().db, principal(null), { billingGroupId: groupA }, { pageSize: 2 });
    for (const other of [
      {},
      { billingGroupId: groupB },
      { billingGroupId: groupA, fromPrefix: "1" },
      { billingGroupId: groupA, toPrefix: "4" },
      { billingGroupId: groupA, uuid: "s-1" },
      { billingGroupId: groupA, id: "1" },
    ]) {
      await expect(
        listCalls(handle().db, principal(null), other, { pageSize: 2, cursor: first.nextCursor }),
        JSON.stringify(other),
      ).rejects.toMatchObject({
        code: "invalid_cursor",
      });
    }
    const second = await listCalls(
      handle().db,
      principal(null),
      { billingGroupId: groupA },
      { pageSize: 2, cursor: first.nextCursor },
    );
    expect(second.page).toHaveLength(2);
  });

  it("lists rated and the account on every call", async () => {
    const [call] = (await listCalls(handle().db, principal(groupA), {}, { pageSize: 1 })).page;
    expect(call).toMatchObject({ billingGroupId: groupA, rated: true });
  });
});
