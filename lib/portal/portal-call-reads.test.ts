import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { listCallsQuerySchema } from "@/lib/calls/schemas";
import { moveMonth } from "@/lib/history/move-month";
import { openTestHistoryStore, testClickHouseUrl } from "@/lib/history/testing/history-test-store";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { MOVE_AFTER, NOVEMBER, NOW, seed } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { portalCall, portalCallPage } from "./portal-call-reads";

// The portal's call pages across the history boundary (docs/contract.md "History tier"): the call log's first page and
// a call's own page show a moved month's calls to their owner, as GET /v1/calls does, and to no other account.
describeOnEngines("the portal's call pages across the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let groupIds: string[];
  const before = process.env.HISTORY_CLICKHOUSE_URL;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    ({ groupIds } = await seed(db()));
  });
  afterAll(async () => {
    vi.useRealTimers();
    if (before === undefined) delete process.env.HISTORY_CLICKHOUSE_URL;
    else process.env.HISTORY_CLICKHOUSE_URL = before;
    await store?.drop();
  });

  const origin = "http://127.0.0.1:3000";
  const query = (q: Record<string, string>) => listCallsQuerySchema.parse(q);
  const ids = (page: { calls: { id: string }[] }) => page.calls.map((c) => c.id);

  it("shows a moved call on its owner's call log and call page, and not to another account", async () => {
    process.env.HISTORY_CLICKHOUSE_URL = `${testClickHouseUrl()}/${store.database}`;
    const owner = testPrincipal(groupIds[0], ["calls:read", "calls:read_cost"], "session");
    const other = testPrincipal(groupIds[1], ["calls:read"], "session");
    const firstPage = () => portalCallPage(db(), owner, query({}), origin);
    const smallPages = async () => {
      const pages = [await portalCallPage(db(), owner, query({ pageSize: "2" }), origin)];
      while (pages.at(-1)!.nextPageUrl && pages.length < 10) {
        const cursor = new URL(pages.at(-1)!.nextPageUrl!).searchParams.get("cursor")!;
        pages.push(await portalCallPage(db(), owner, query({ pageSize: "2", cursor }), origin));
      }
      return pages;
    };
    const pageBefore = await firstPage();
    const pagesBefore = await smallPages();
    const moved = pageBefore.calls.find((c) => c.startTime.startsWith("2030-11-03T10"))!;
    expect(moved).toBeDefined();
    const detailBefore = await portalCall(db(), owner, moved.id);

    await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) });

    // The owner's first page, later pages and the call's own page answer as before the move.
    expect(await firstPage()).toEqual(pageBefore);
    expect(await smallPages()).toEqual(pagesBefore);
    expect(ids(pageBefore)).toContain(moved.id);
    expect(await portalCall(db(), owner, moved.id)).toEqual(detailBefore);
    // Another account: not on its call log, and its call page is the unknown call's 404.
    expect(ids(await portalCallPage(db(), other, query({}), origin))).not.toContain(moved.id);
    await expect(portalCall(db(), other, moved.id)).rejects.toMatchObject({ code: "not_found" });
    // The hot store alone lost the call: the history tier is what the portal reads.
    delete process.env.HISTORY_CLICKHOUSE_URL;
    expect(ids(await firstPage())).not.toContain(moved.id);
    await expect(portalCall(db(), owner, moved.id)).rejects.toMatchObject({ code: "not_found" });
  });
});
