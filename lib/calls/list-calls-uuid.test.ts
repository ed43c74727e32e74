import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { callPartitionNames, nodesOfExplain, partitionsRead, type PlanNode } from "@/lib/testing/explain-plan";
import { testPrincipal } from "@/lib/testing/test-principal";
import { insertUuidLookupCalls, type PlacedCall } from "@/lib/testing/uuid-lookup-calls";
import { exportCallsCsv } from "./export-csv";
import { listCalls, listCallsJson, listCallsJsonQuery, type CallFilters } from "./list-calls";

process.env.CURSOR_SECRET ??= "unit-test-cursor-secret";

// The `uuid` filter since calls is partitioned by month (0008): no index on calls holds uuid any more, so the filter
// finds the call(s) in call_uuids and reads each by calls' primary key, in its own partition (migration 0009 indexes
// call_uuids(uuid) for platform keys). Results are those of `calls.uuid = $uuid` within the key's reach.

/** Calls the tests look up, by the month they started in. */
const PLACED: PlacedCall[] = [
  // 2019-07 has no partition (rows inserted directly, not by ingest): it lands in calls_default.
  { uuid: "m-old", group: "a", start: "2019-07-14T08:00:00.000Z" },
  { uuid: "m-jan", group: "a", start: "2025-01-31T23:59:59.999Z" },
  { uuid: "m-feb", group: "a", start: "2025-02-01T00:00:00.000Z" },
  // This month: a partition of the open window.
  { uuid: "m-now", group: "a", start: new Date(Date.now() - 60_000).toISOString() },
  // One uuid in two groups, in two months: two calls.
  { uuid: "shared", group: "a", start: "2025-03-10T12:00:00.000Z" },
  { uuid: "shared", group: "b", start: "2025-01-20T06:30:00.000Z" },
];

describeOnEngines("uuid filter through call_uuids", (handle) => {
  const groups = { a: "", b: "" };
  /** Partition of each placed call, by `${uuid}/${group}`. */
  const partitionOf = new Map<string, string>();
  let partitions: string[] = [];
  let rowsPerPartition = new Map<string, number>();

  beforeAll(async () => {
    const db = handle().db;
    groups.a = (await createBillingGroup(db, { name: "A", currency: "USD" })).id;
    groups.b = (await createBillingGroup(db, { name: "B", currency: "USD" })).id;
    await insertUuidLookupCalls(db, groups, PLACED);
    const placed = await queryRows<{ uuid: string; g: string; part: string }>(
      db,
      sql`SELECT uuid, billing_group_id AS g, tableoid::regclass::text AS part FROM calls WHERE uuid NOT LIKE 'bulk-%'`,
    );
    for (const r of placed) partitionOf.set(`${r.uuid}/${r.g === groups.a ? "a" : "b"}`, r.part);
    partitions = await callPartitionNames(db);
    const counts = await queryRows<{ part: string; n: number }>(
      db,
      sql`SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM calls GROUP BY 1`,
    );
    rowsPerPartition = new Map(counts.map((r) => [r.part, r.n]));
  }, 120_000);

  const bound = (g: "a" | "b") => testPrincipal(groups[g]);
  const platform = () => testPrincipal(null);
  /** [uuid, group, startTime] of every call listCalls gives, newest first, over all pages. */
  async function listed(p: Principal, filters: CallFilters): Promise<[string, string, string][]> {
    const out: [string, string, string][] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await listCalls(handle().db, p, filters, { pageSize: 1, cursor });
      out.push(...page.page.map((c): [string, string, string] => [c.uuid, c.billingGroupId, c.startTime]));
      if (!page.hasMore) return out;
      cursor = page.nextCursor;
    }
    throw new Error("did not end");
  }
  const jsonUuids = async (p: Principal, filters: CallFilters) =>
    (
      JSON.parse((await listCallsJson(handle().db, p, filters, { pageSize: 50 })).callsJson) as {
        uuid: string;
        billingGroupId: string;
      }[]
    ).map((c) => [c.uuid, c.billingGroupId]);
  const csvLines = async (p: Principal, filters: CallFilters) =>
    (await new Response(await exportCallsCsv(handle().db, p, filters, 1)).text())
      .split("\r\n")
      .filter(Boolean)
      .slice(1);

  /**
   * GET /v1/calls's statement, run under EXPLAIN (ANALYZE, FORMAT JSON): call_uuids is read by an index, and no
   * partition of calls is read whole. ANALYZE because the plan lists every partition (the call's start_time comes from
   * call_uuids at run time); the planner may pick a Seq Scan for an empty or one-page partition, which run-time
   * pruning then never runs. What runs is one primary-key-sized lookup (Index Cond on id) per call found, in the
   * partition holding it; before (calls.uuid = $uuid) every partition was scanned.
   */
  async function plan(p: Principal, filters: CallFilters): Promise<PlanNode[]> {
    const { query } = listCallsJsonQuery(p, filters, { pageSize: 50 });
    const [row] = await queryRows<{ "QUERY PLAN": unknown }>(handle().db, sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
    return nodesOfExplain(row["QUERY PLAN"]);
  }

  function expectLookups(nodes: PlanNode[], expectedPartitions: string[]) {
    const described = nodes
      .map((n) => `${n["Node Type"]} ${n["Relation Name"] ?? ""} ${n["Index Name"] ?? ""} loops=${n["Actual Loops"]}`)
      .join("\n");
    const onUuids = nodes.filter((n) => n["Relation Name"] === "call_uuids");
    expect(onUuids.length, described).toBeGreaterThan(0);
    for (const n of onUuids) {
      expect(n["Node Type"], described).toMatch(/^Index (Only )?Scan$/);
      expect(n["Index Cond"], described).toContain("uuid");
    }
    const onCalls = nodes.filter((n) => n["Relation Name"] !== undefined && partitions.includes(n["Relation Name"]));
    // No partition holding rows is planned as a Seq Scan.
    const seqOnRows = onCalls.filter(
      (n) => n["Node Type"] === "Seq Scan" && (rowsPerPartition.get(n["Relation Name"]!) ?? 0) > 100,
    );
    expect(seqOnRows, described).toEqual([]);
    // What ran: one index lookup by (start_time, id) in each partition holding a call found, nothing else.
    const ran = onCalls.filter((n) => (n["Actual Loops"] ?? 0) > 0);
    for (const n of ran) {
      expect(n["Node Type"], described).toMatch(/^Index (Only )?Scan$/);
      expect(n["Index Cond"], described).toMatch(/\bid = /);
    }
    expect(ran.map((n) => n["Relation Name"]).sort(), described).toEqual([...expectedPartitions].sort());
  }

  /** The partitions of calls the listing actually read. */
  const read = async (p: Principal, filters: CallFilters) => partitionsRead(await plan(p, filters), partitions);

  it("finds a call by uuid whatever month it started in, for its group's key and a platform key, in JSON and CSV too", async () => {
    // The fixture has material: calls in calls_default, in the bulk months and this month; bulk months hold rows.
    const used = new Set(partitionOf.values());
    expect(used).toContain("calls_default");
    expect(used.size).toBeGreaterThanOrEqual(5);
    for (const part of ["calls_p202501", "calls_p202502", "calls_p202503"])
      expect(rowsPerPartition.get(part), part).toBeGreaterThan(1000);
    for (const p of PLACED.filter((x) => x.uuid !== "shared")) {
      const expected: [string, string, string][] = [[p.uuid, groups[p.group], p.start]];
      expect(await listed(bound(p.group), { uuid: p.uuid }), p.uuid).toEqual(expected);
      expect(await listed(platform(), { uuid: p.uuid }), p.uuid).toEqual(expected);
      expect(await listed(platform(), { uuid: p.uuid, billingGroupId: groups[p.group] }), p.uuid).toEqual(expected);
      // With the other filters too: a range around its start, and one that leaves it out.
      const at = Date.parse(p.start);
      expect(
        await listed(bound(p.group), { uuid: p.uuid, startTimeGte: new Date(at), startTimeLte: new Date(at) }),
        p.uuid,
      ).toEqual(expected);
      expect(await listed(bound(p.group), { uuid: p.uuid, startTimeGte: new Date(at + 1) }), p.uuid).toEqual([]);
      expect(await jsonUuids(bound(p.group), { uuid: p.uuid }), p.uuid).toEqual([[p.uuid, groups[p.group]]]);
      const lines = await csvLines(bound(p.group), { uuid: p.uuid });
      expect(lines, p.uuid).toHaveLength(1);
      expect(lines[0].split(",")[1], p.uuid).toBe(p.uuid);
      // Found by a lookup in its own month's partition, not by reading the others (as `calls.uuid = $uuid` did).
      const own = [partitionOf.get(`${p.uuid}/${p.group}`)!];
      expect(await read(bound(p.group), { uuid: p.uuid }), p.uuid).toEqual(own);
      expect(await read(platform(), { uuid: p.uuid }), p.uuid).toEqual(own);
    }
    expect(await listed(bound("b"), { uuid: "bulk-4999" })).toEqual([["bulk-4999", groups.b, expect.any(String)]]);
    expect(await listed(platform(), { uuid: "no-such-uuid" })).toEqual([]);
  });

  it("a bound key asking for another group's uuid gets nothing (listing, JSON, CSV)", async () => {
    for (const uuid of ["m-old", "m-jan", "m-now", "bulk-2"]) {
      expect(await listed(bound("b"), { uuid }), uuid).toEqual([]);
      expect(await listed(bound("b"), { uuid, billingGroupId: groups.a }), uuid).toEqual([]);
      expect(await jsonUuids(bound("b"), { uuid }), uuid).toEqual([]);
      expect(await csvLines(bound("b"), { uuid }), uuid).toEqual([]);
      // call_uuids has no (b, uuid): no partition of calls is read at all.
      expect(await read(bound("b"), { uuid }), uuid).toEqual([]);
    }
    expect(await listed(bound("a"), { uuid: "bulk-1" })).toEqual([]);
  });

  it("a uuid two groups hold: a platform key lists both calls (newest first), each bound key its own", async () => {
    const a: [string, string, string] = ["shared", groups.a, "2025-03-10T12:00:00.000Z"];
    const b: [string, string, string] = ["shared", groups.b, "2025-01-20T06:30:00.000Z"];
    expect(await listed(platform(), { uuid: "shared" })).toEqual([a, b]);
    expect(await jsonUuids(platform(), { uuid: "shared" })).toEqual([a.slice(0, 2), b.slice(0, 2)]);
    expect(await csvLines(platform(), { uuid: "shared" })).toHaveLength(2);
    expect(await listed(platform(), { uuid: "shared", billingGroupId: groups.b })).toEqual([b]);
    expect(await listed(bound("a"), { uuid: "shared" })).toEqual([a]);
    expect(await listed(bound("b"), { uuid: "shared" })).toEqual([b]);
    expect(await listed(bound("a"), { uuid: "shared", billingGroupId: groups.b })).toEqual([]);
    // Each call read in its own partition; a bound key's lookup reads only its group's call.
    expect(await read(platform(), { uuid: "shared" })).toEqual(
      [partitionOf.get("shared/a"), partitionOf.get("shared/b")].sort(),
    );
    expect(await read(bound("a"), { uuid: "shared" })).toEqual([partitionOf.get("shared/a")]);
  });

  it("EXPLAIN: a bound key's uuid listing reads call_uuids by index and only the call's partition, by its key", async () => {
    for (const uuid of ["m-jan", "m-feb"]) {
      const nodes = await plan(bound("a"), { uuid });
      expectLookups(nodes, [partitionOf.get(`${uuid}/a`)!]);
    }
    const shared = await plan(bound("b"), { uuid: "shared" });
    expectLookups(shared, [partitionOf.get("shared/b")!]);
  });

  it("EXPLAIN: a platform key's uuid listing reads call_uuids by index (call_uuids_uuid_idx) and each call's partition by its key", async () => {
    const nodes = await plan(platform(), { uuid: "shared" });
    expectLookups(nodes, [partitionOf.get("shared/a")!, partitionOf.get("shared/b")!]);
    expect(nodes.filter((n) => n["Relation Name"] === "call_uuids").map((n) => n["Index Name"])).toEqual([
      "call_uuids_uuid_idx",
    ]);
  });
});
