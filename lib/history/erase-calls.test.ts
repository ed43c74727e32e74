import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { callReads } from "@/lib/calls/call-store";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { json } from "@/lib/http/json-response";
import { runIdempotent } from "@/lib/idempotency/idempotent-request";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { billedRows, MOVE_AFTER, NOVEMBER, NOW, seed } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { eraseAccountCalls } from "./erase-calls";
import { historyCallReads } from "./history-call-reads";
import { callsTable, type HistoryStore } from "./history-store";
import { moveMonth } from "./move-month";
import { openTestHistoryStore } from "./testing/history-test-store";

// Erasure of one account's calls in both tiers (docs/contract.md "History tier"): gone from PostgreSQL and ClickHouse,
// from listings, details and exports; the other account's calls, rollups, ledger, invoices and uuid claims unchanged;
// audited; refused for calls not yet invoiced; a retry under the same Idempotency-Key answers the same.
const historyIds = async (store: HistoryStore, groupId: string): Promise<string[]> => {
  const result = await store.client.query({
    query: `SELECT toString(id) AS id FROM ${callsTable(store)} WHERE billing_group_id = '${groupId}' ORDER BY id`,
    format: "JSONEachRow",
  });
  return (await result.json<{ id: string }>()).map((r) => r.id);
};

const hotIds = async (db: Db, groupId: string): Promise<string[]> =>
  (
    await queryRows<{ id: string }>(db, sql`SELECT id::text FROM calls WHERE billing_group_id = ${groupId} ORDER BY id`)
  ).map((r) => r.id);

const billed = (db: Db) => billedRows(db);

const by = { actor: { type: "api_key" as const, id: "key_test", label: "test" }, address: "127.0.0.1" };

describeOnEngines("erasing an account's calls in both tiers", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let groupIds: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    ({ groupIds } = await seed(db()));
    await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) });
    // A call of March 2031, not yet invoiced, for the first account.
    await ingestCdrs(db(), [
      answeredCdr({
        uuid: "march",
        billingGroupId: groupIds[0],
        startMs: Date.parse("2031-03-10T10:00:00Z"),
        seconds: 60,
        to: "12125550100",
      }),
    ]);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  it("refuses calls not yet invoiced, and an unknown account, changing nothing", async () => {
    const [a, b] = groupIds;
    const before = { hot: await hotIds(db(), a), history: await historyIds(store, a), billed: await billed(db()) };
    const refused = await eraseAccountCalls(db(), store, a, {}, by).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "conflict", errors: [{ param: "before" }] });
    expect((refused as ApiError).errors?.[0].message).toMatch(/2031-03-01T00:00:00Z/);
    await expect(
      eraseAccountCalls(db(), store, a, { before: new Date("2031-03-10T12:00:00Z") }, by),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(eraseAccountCalls(db(), store, `${b}x`, {}, by)).rejects.toMatchObject({ code: "not_found" });
    expect({ hot: await hotIds(db(), a), history: await historyIds(store, a), billed: await billed(db()) }).toEqual(
      before,
    );
  });

  it("erases one account's invoiced calls from both stores and every read, audited, once per Idempotency-Key", async () => {
    const [a, b] = groupIds;
    const reads = historyCallReads(callReads(db()), db(), store);
    const other = { hot: await hotIds(db(), b), history: await historyIds(store, b) };
    expect(other.hot.length).toBeGreaterThan(0);
    expect(other.history.length).toBeGreaterThan(0);
    const movedId = (await historyIds(store, a))[0];
    expect(await reads.getCall(testPrincipal(a), movedId)).toMatchObject({ id: movedId });
    const before = await billed(db());
    const hotA = await hotIds(db(), a);
    expect(hotA).toHaveLength(2); // December's and March's

    const erase = (tx: Db) =>
      eraseAccountCalls(tx, store, a, { before: new Date("2031-03-01T00:00:00Z") }, by).then((r) => json(r));
    const request = { keyId: "key_test", key: "erase-1", fingerprint: "f1" };
    const first = await runIdempotent(db(), request, erase);
    expect(first.status).toBe(200);
    const answer = await first.text();
    expect(JSON.parse(answer)).toEqual({
      account: a,
      before: "2031-03-01T00:00:00.000Z",
      erased: { hot: 1, history: 3, total: 4 },
    });
    const again = await runIdempotent(db(), request, erase);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(answer);

    // Gone from both stores, but March's call (after the bound); the other account's untouched.
    expect(await hotIds(db(), a)).toEqual([hotA[1]]);
    expect(await historyIds(store, a)).toEqual([]);
    expect({ hot: await hotIds(db(), b), history: await historyIds(store, b) }).toEqual(other);
    expect(await billed(db())).toEqual(before);
    // Every read: listing and export answer March's call only, the detail of a moved call 404.
    const principal = testPrincipal(a);
    const listed = JSON.parse((await reads.listCallsJson(principal, {}, { pageSize: 50 })).callsJson) as {
      id: string;
    }[];
    expect(listed.map((c) => c.id)).toEqual([hotA[1]]);
    expect(
      (await reads.exportPage(principal, { startTimeLte: new Date("2031-02-28Z") }, { pageSize: 50 })).page,
    ).toEqual([]);
    await expect(reads.getCall(principal, movedId)).rejects.toMatchObject({ code: "not_found" });
    // Audited once, with the counts.
    expect(
      await queryRows(
        db(),
        sql`SELECT action, billing_group_id AS g, after FROM audit_events WHERE action = 'account.calls_erased'`,
      ),
    ).toEqual([
      {
        action: "account.calls_erased",
        g: a,
        after: { before: "2031-03-01T00:00:00.000Z", hot: 1, history: 3, total: 4 },
      },
    ]);
  });
});
