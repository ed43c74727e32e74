import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { callReads } from "@/lib/calls/call-store";
import type { CallFilters } from "@/lib/calls/list-calls";
import { serializeCall } from "@/lib/calls/serialize-call";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { historyCallReads } from "./history-call-reads";
import {
  callKeysTable,
  callsTable,
  ensureHistorySchema,
  historyKeysReady,
  historyRowToStoredCall,
  openHistoryStore,
  type HistoryStore,
} from "./history-store";
import { CLICKHOUSE_SERVER_BINARY, startTestCluster, type TestCluster } from "./testing/clickhouse-cluster";
import { testClickHouseUrl } from "./testing/history-test-store";

// A moved month's pages read keys first (history-call-reads.ts pageRowsByKeys): every page, deep into a listing with
// filters, is exactly the whole-row query's `ORDER BY start_time DESC, id DESC` slice, ties on start_time across groups
// included (three groups' calls share each instant, so the keyset's id decides). An instant every 400 s over 9 days:
// an hour's window holds 27 calls, so filtered pages widen their windows, and deep ones start inside an instant.
// A platform page reads its keys from call_keys (history-store.ts ensureCallKeys): half the calls (even numbers) are
// in calls before call_keys exists, as a month moved by older code (copied in by ensureHistorySchema), the other half
// inserted after it (its feed); a call either way misses from call_keys changes a page. On one server and on two
// shards (calls and call_keys Distributed, by group: lib/history/testing/clickhouse-cluster.ts).
const NOVEMBER = Date.parse("2030-11-01T00:00:00Z");
const CALLS = 6000;

const insertCalls = (store: HistoryStore, half: 0 | 1) =>
  store.client.command({
    query: `INSERT INTO ${callsTable(store)} (id, uuid, billing_group_id, direction, from_number, to_number,
              start_time, end_time, duration, bill_duration, hangup_cause, currency, rated, price_micros, created_at)
            SELECT toInt64(number + 1), concat('keys-', toString(number)), concat('bg_keys', toString(number % 3)),
              if(number % 4 = 0, 'inbound', 'outbound'), concat('1555', toString(number % 7)),
              concat(if(number % 5 = 0, '44', '1'), toString(2125550000 + number)),
              toInt64(${NOVEMBER} + intDiv(number, 3) * 400000), toInt64(${NOVEMBER} + intDiv(number, 3) * 400000 + 60000),
              toInt32(60), toInt32(60), toNullable(if(number % 6 = 1, 'USER_BUSY', 'NORMAL_CLEARING')), 'USD',
              toUInt8(1), toInt64(10000 + number), toInt64(${NOVEMBER})
            FROM numbers(${CALLS}) WHERE number % 2 = ${half}`,
    clickhouse_settings: store.cluster ? { insert_distributed_sync: 1 } : {},
  });

/** A store on a database of its own: one server's, or the test cluster's (its first server the entry). */
function openStore(cluster?: TestCluster): HistoryStore {
  const database = `cb_keys_${process.pid}_${randomBytes(4).toString("hex")}`;
  return cluster
    ? openHistoryStore({
        url: cluster.httpUrls[0],
        database,
        cluster: { name: cluster.name, serverUrls: cluster.httpUrls },
      })
    : openHistoryStore({ url: testClickHouseUrl(), database });
}

function pageKeysSuite(where: string, cluster: () => TestCluster | undefined) {
  describeOnEngines(`history pages read keys first, ${where}`, (handle) => {
    const db = () => handle().db;
    let store: HistoryStore;

    beforeAll(async () => {
      store = openStore(cluster());
      await ensureHistorySchema(store);
      // As a database of older code: calls alone, then the even half of the calls; then the schema as it is now.
      for (const shard of store.shards)
        for (const table of ["call_keys_ready", "call_keys_feed", "call_keys", "call_keys_local"])
          await shard.command({ query: `DROP TABLE IF EXISTS ${store.database}.${table}` });
      await insertCalls(store, 0);
      await ensureHistorySchema(store);
      await insertCalls(store, 1);
      await db().execute(
        sql`INSERT INTO history_moves (month, state, copy_attempts, calls) VALUES ('2030-11-01T00:00:00Z', 'removed', 1, ${CALLS})`,
      );
    });
    afterAll(async () => {
      for (const shard of store?.shards ?? [])
        await shard.command({ query: `DROP DATABASE IF EXISTS ${store.database}` });
      await store?.close();
    });

    it("holds every call's key in call_keys once the schema is ensured", async () => {
      expect(await historyKeysReady(store)).toBe(true);
      const result = await store.client.query({
        query: `SELECT toString(uniqExact(id)) AS n FROM ${callKeysTable(store)}`,
        format: "JSONEachRow",
      });
      expect(await result.json()).toEqual([{ n: String(CALLS) }]);
    });

    /** The whole-row query's answer (what the page read was before keys first), serialised as the listing does. */
    async function wholeRows(principal: Principal, where: string) {
      const result = await store.client.query({
        query: `SELECT * FROM ${callsTable(store)} WHERE ${where} ORDER BY start_time DESC, id DESC`,
        format: "JSONEachRow",
      });
      return (await result.json<Record<string, unknown>>()).map((r) =>
        serializeCall(historyRowToStoredCall(r), principal),
      );
    }

    it.each<[string, Principal, CallFilters, string]>([
      ["the platform, no filter", testPrincipal(null), {}, "1"],
      [
        "the platform with cost, direction and hangup cause",
        testPrincipal(null, ["calls:read", "calls:read_cost"]),
        { direction: "outbound", hangupCause: "normal_clearing" },
        "direction = 'outbound' AND hangup_cause = 'NORMAL_CLEARING'",
      ],
      [
        "the platform with a destination prefix, a from prefix and a range",
        testPrincipal(null),
        { toPrefix: "44", fromPrefix: "1555", startTimeLte: new Date(NOVEMBER + 600_000_000) },
        `startsWith(to_number, '44') AND startsWith(from_number, '1555') AND start_time <= ${NOVEMBER + 600_000_000}`,
      ],
      [
        "one group's key with a destination prefix and a range",
        testPrincipal("bg_keys1"),
        { toPrefix: "1", startTimeLte: new Date(NOVEMBER + 200_000_000) },
        `billing_group_id = 'bg_keys1' AND startsWith(to_number, '1') AND start_time <= ${NOVEMBER + 200_000_000}`,
      ],
    ])("lists %s page by page as the whole-row query orders it", async (_, principal, filters, where) => {
      const expected = await wholeRows(principal, where);
      expect(expected.length).toBeGreaterThan(300);
      const reads = historyCallReads(callReads(db()), db(), store);
      let cursor: string | undefined;
      let offset = 0;
      // Twelve pages of 25: the last ones 275 calls deep, through the cursor each page issued.
      for (let i = 0; i < 12; i++) {
        const page = await reads.listCallsJson(principal, filters, { pageSize: 25, cursor });
        expect(page.callsJson).toBe(JSON.stringify(expected.slice(offset, offset + 25)));
        expect(page.hasMore).toBe(true);
        offset += 25;
        cursor = page.nextCursor;
      }
    });
  });
}

pageKeysSuite("one server", () => undefined);

const describeIfServer = CLICKHOUSE_SERVER_BINARY ? describe : describe.skip;
describeIfServer("on two shards", () => {
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    // Ports of their own (8134/8135, 9110/9111): history-cluster.test.ts may run its cluster at the same time.
    cluster = await startTestCluster(8134);
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  pageKeysSuite("two shards", () => cluster);
});
