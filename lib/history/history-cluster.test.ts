import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { callReads, type CallReads } from "@/lib/calls/call-store";
import type { CallFilters } from "@/lib/calls/list-calls";
import type { Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { ISSUER, MOVE_AFTER, NOW } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { summarizeUsage } from "@/lib/usage/summarize-usage";
import { eraseAccountCalls } from "./erase-calls";
import { historyCallReads } from "./history-call-reads";
import { ensureHistorySchema, openHistoryStore, type HistoryStore } from "./history-store";
import { moveMonth } from "./move-month";
import { retainMonths } from "./retain-months";
import { CLICKHOUSE_SERVER_BINARY, startTestCluster, type TestCluster } from "./testing/clickhouse-cluster";

// The history tier on a cluster of two shards (issue 33 item 3, docs/contract.md "History tier"): two clickhouse-server
// processes, calls a Distributed table over calls_local sharded by billing group. Half the months move; every page of
// the listings, every export and the usage answer as before, with rows on both shards; retention and erasure reach
// each shard's local table.
const MONTHS = ["2030-09", "2030-10", "2030-11", "2030-12"];
const GROUPS = 6;

async function seedMonths(db: Db): Promise<string[]> {
  const groups: string[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const group = await createBillingGroup(db, { name: `G${g}`, currency: "USD" });
    await db.execute(sql`UPDATE billing_groups SET created_at = '2030-08-01T00:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(db, group.id, parseRateCsv("prefix,rate,increment,description\n1,1,60/60,USA\n"), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    groups.push(group.id);
  }
  let serial = 0;
  const cdrs = [];
  for (const [m, month] of MONTHS.entries())
    for (const [g, groupId] of groups.entries())
      for (let k = 0; k < 3; k++)
        cdrs.push(
          answeredCdr({
            uuid: `cluster-${serial++}`,
            billingGroupId: groupId,
            startMs: Date.parse(
              `${month}-${String(3 + k * 9).padStart(2, "0")}T${String(g + 8).padStart(2, "0")}:00:00Z`,
            ),
            seconds: 60 * (1 + ((m + g + k) % 5)),
            to: `1212555${String(serial).padStart(4, "0")}`,
          }),
        );
  await ingestCdrs(db, cdrs);
  await runInvoices(db, { now: new Date(NOW), issuer: ISSUER });
  return groups;
}

const describeIfServer = CLICKHOUSE_SERVER_BINARY ? describe : describe.skip;
if (!CLICKHOUSE_SERVER_BINARY)
  console.warn("history-cluster.test.ts skipped: no clickhouse-server in /usr/bin or /usr/sbin to start a cluster of");

describeIfServer("the history tier on two shards", () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  describeOnEngines("listing, export and usage with half the months moved", (handle) => {
    const db = () => handle().db;
    let store: HistoryStore;
    let groupIds: string[];

    beforeAll(async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(new Date(NOW));
      const database = `cb_cluster_${process.pid}_${randomBytes(4).toString("hex")}`;
      store = openHistoryStore({
        url: cluster.httpUrls[0],
        database,
        cluster: { name: cluster.name, serverUrls: cluster.httpUrls },
      });
      await ensureHistorySchema(store);
      groupIds = await seedMonths(db());
    });
    afterAll(async () => {
      vi.useRealTimers();
      for (const shard of store?.shards ?? [])
        await shard.command({ query: `DROP DATABASE IF EXISTS ${store.database}` });
      await store?.close();
    });

    const localCounts = async () => {
      const counts = [];
      for (const shard of store.shards) {
        const result = await shard.query({
          query: `SELECT toString(count()) AS n, toString(uniqExact(billing_group_id)) AS g FROM ${store.database}.calls_local`,
          format: "JSONEachRow",
        });
        const [row] = await result.json<{ n: string; g: string }>();
        counts.push({ calls: Number(row.n), groups: Number(row.g) });
      }
      return counts;
    };

    async function allPages(reads: CallReads, principal: Principal, filters: CallFilters) {
      const pages: { callsJson: string; hasMore: boolean; nextCursor?: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await reads.listCallsJson(principal, filters, { pageSize: 5, cursor });
        pages.push(page);
        cursor = page.nextCursor;
      } while (cursor && pages.length < 40);
      return pages;
    }

    const listings = (): [Principal, CallFilters][] => [
      [testPrincipal(null), {}],
      [testPrincipal(null, ["calls:read", "calls:read_cost"]), {}],
      ...groupIds.map((g): [Principal, CallFilters] => [testPrincipal(g), {}]),
      [testPrincipal(null), { startTimeGte: new Date("2030-10-10T00:00:00Z"), startTimeLte: new Date("2030-11-20Z") }],
      [testPrincipal(null, ["calls:read", "calls:read_cost"]), { billingGroupId: groupIds[2], to: "1212" }],
    ];

    async function answers(reads: CallReads) {
      const pages = [];
      for (const [principal, filters] of listings()) pages.push(await allPages(reads, principal, filters));
      const exports = [];
      for (const [principal, filters] of listings()) {
        let cursor: string | undefined;
        do {
          const page = await reads.exportPage(principal, filters, { pageSize: 7, cursor });
          exports.push(page);
          cursor = page.nextCursor;
        } while (cursor && exports.length < 200);
        // Pages of 5, not a divisor of the 36 hot calls (see the known bug below).
        exports.push(await new Response(await reads.exportCsv(principal, filters, 5)).text());
      }
      const usage = [];
      for (const principal of [testPrincipal(null), testPrincipal(groupIds[1])])
        for (const groupBy of ["day", "month", "destination"] as const)
          usage.push(
            await summarizeUsage(
              db(),
              principal,
              { startTimeGte: new Date("2030-09-01T00:00:00Z"), startTimeLte: new Date("2030-12-31T23:59:59.999Z") },
              { groupBy },
            ),
          );
      return { pages, exports, usage };
    }

    it("answers the same pages, exports and usage with September and October on the shards", async () => {
      const before = await answers(callReads(db()));
      // Every call of the four months is listed before the move: 6 groups x 4 months x 3 calls.
      expect(before.pages[0].flatMap((p) => JSON.parse(p.callsJson) as unknown[])).toHaveLength(72);
      for (const month of ["2030-09-15T00:00:00Z", "2030-10-15T00:00:00Z"]) {
        const moved = await moveMonth(db(), store, { month: new Date(month), moveAfterMonths: MOVE_AFTER });
        expect(moved).toMatchObject({ state: "removed", calls: "18" });
      }
      // The moved calls are in calls_local on both servers, each group's whole on one (sharded by group).
      const counts = await localCounts();
      // Each group's calls are on the shard cityHash64 names (key % 2, weights 1). Group ids are random, so all six
      // may hash to one shard now and then (1 run in 32): the placement is checked, not that both shards are used.
      const [entry] = store.shards;
      const placed = await (
        await entry.query({
          query: `SELECT toString(cityHash64(arrayJoin([${groupIds.map((g) => `'${g}'`).join(", ")}])) % ${store.shards.length}) AS s`,
          format: "JSONEachRow",
        })
      ).json<{ s: string }>();
      expect(counts.map((c) => c.calls)).toEqual(
        store.shards.map((_, i) => 6 * placed.filter((p) => Number(p.s) === i).length),
      );
      expect(counts.reduce((s, c) => s + c.calls, 0)).toBe(36);
      expect(counts.reduce((s, c) => s + c.groups, 0)).toBe(GROUPS);
      // PostgreSQL alone no longer lists them: the shards answer.
      const [hotOnly] = (await answers(callReads(db()))).pages;
      expect(hotOnly.flatMap((p) => JSON.parse(p.callsJson) as unknown[])).toHaveLength(36);
      expect(await answers(historyCallReads(callReads(db()), db(), store))).toEqual(before);
    });

    // Found by this test (2026-11-28), in history-call-reads.ts pageAcross: a full hot page that was the hot store's
    // last (hasMore false) and ended after every moved month was answered alone, with no cursor, so the listing stopped
    // there although the moved months have calls. Here 36 hot calls in pages of 4: the CSV ended after November.
    it("continues into the moved months after a full last hot page", async () => {
      const reads = historyCallReads(callReads(db()), db(), store);
      const csv = async (pageSize: number) =>
        new Response(await reads.exportCsv(testPrincipal(null), {}, pageSize)).text();
      expect(await csv(4)).toEqual(await csv(5));
    });

    it("drops a month and erases an account's calls on every shard", async () => {
      // Retention drops September's partition on each shard; erasure's mutation reaches each shard's calls_local.
      await retainMonths(db(), store, { retentionMonths: 5, now: new Date(NOW) });
      expect((await localCounts()).reduce((s, c) => s + c.calls, 0)).toBe(18);
      const erased = await eraseAccountCalls(
        db(),
        store,
        groupIds[0],
        {},
        { actor: { type: "cli", id: null, label: "test" }, address: null },
      );
      expect(erased.erased.history).toBe(3);
      expect((await localCounts()).reduce((s, c) => s + c.calls, 0)).toBe(15);
    });
  });
});
