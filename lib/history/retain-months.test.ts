import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { callReads } from "@/lib/calls/call-store";
import { queryRows, type Db } from "@/lib/db/client";
import { CdrRejectedError, ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { billedRows, MOVE_AFTER, NOVEMBER, NOW, seed } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { historyCallReads } from "./history-call-reads";
import { callsTable, type HistoryStore } from "./history-store";
import { moveMonth } from "./move-month";
import { retainMonths } from "./retain-months";
import { openTestHistoryStore } from "./testing/history-test-store";

// History retention (docs/contract.md "History tier"): a moved month within HISTORY_RETENTION_MONTHS stays in
// ClickHouse; beyond it its partition is dropped and its row `dropped`, and nothing in PostgreSQL changes.
const historyCount = async (store: HistoryStore): Promise<number> => {
  const result = await store.client.query({ query: `SELECT count() AS n FROM ${callsTable(store)}`, format: "JSON" });
  return Number((await result.json<{ n: string }>()).data[0].n);
};

const billed = (db: Db) => billedRows(db, { hotCalls: true });

describeOnEngines("history retention", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let groupIds: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://127.0.0.1:8123/unused");
    store = await openTestHistoryStore();
    ({ groupIds } = await seed(db()));
    await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) });
  });
  afterAll(async () => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    await store?.drop();
  });

  it("keeps a moved month within retention and drops it beyond, changing nothing in PostgreSQL", async () => {
    const reads = historyCallReads(callReads(db()), db(), store);
    const platform = testPrincipal(null);
    const listed = async () =>
      (JSON.parse((await reads.listCallsJson(platform, {}, { pageSize: 50 })).callsJson) as { id: string }[]).map(
        (c) => c.id,
      );
    const before = await billed(db());
    const listedBefore = await listed();
    expect(listedBefore).toHaveLength(7);
    expect(await historyCount(store)).toBe(5);

    // March 2031 and four months' retention: months before November are due; November (moved) is kept.
    expect(await retainMonths(db(), store, { retentionMonths: 4, now: new Date(NOW) })).toEqual({
      keptFrom: "2030-11",
      dropped: [],
    });
    expect(await historyCount(store)).toBe(5);
    expect(await listed()).toEqual(listedBefore);

    // Three months: November is due.
    expect(await retainMonths(db(), store, { retentionMonths: 3, now: new Date(NOW) })).toEqual({
      keptFrom: "2030-12",
      dropped: [{ month: "2030-11", calls: "5" }],
    });
    expect(await historyCount(store)).toBe(0);
    expect(await queryRows(db(), sql`SELECT state, dropped_at IS NOT NULL AS at FROM history_moves`)).toEqual([
      { state: "dropped", at: true },
    ]);
    expect(await billed(db())).toEqual(before);
    // Reads answer what PostgreSQL still holds (December and the cut day), without asking ClickHouse for November.
    const hotIds = (
      await queryRows<{ id: string }>(db(), sql`SELECT id::text FROM calls ORDER BY start_time DESC`)
    ).map((r) => r.id);
    expect(hotIds).toHaveLength(2);
    expect(await listed()).toEqual(hotIds);
    const novemberOnly = { startTimeGte: NOVEMBER, startTimeLte: new Date("2030-11-30T23:59:59.999Z") };
    expect((await reads.exportPage(testPrincipal(groupIds[0]), novemberOnly, { pageSize: 10 })).page).toEqual([]);
    const gone = listedBefore.find((id) => !hotIds.includes(id))!;
    await expect(reads.getCall(platform, gone)).rejects.toMatchObject({ code: "not_found" });

    // Once dropped, final: a second run, a move of the month, a late CDR of it change nothing.
    expect((await retainMonths(db(), store, { retentionMonths: 3, now: new Date(NOW) })).dropped).toEqual([]);
    expect(await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) })).toEqual(
      expect.objectContaining({ month: "2030-11", state: "dropped", calls: "5" }),
    );
    const late = answeredCdr({
      uuid: "late-after-drop",
      billingGroupId: groupIds[0],
      startMs: Date.parse("2030-11-20T10:00:00Z"),
      seconds: 60,
      to: "12125550100",
    });
    await expect(ingestCdrs(db(), [late])).rejects.toBeInstanceOf(CdrRejectedError);
    expect(await billed(db())).toEqual(before);
  });
});
