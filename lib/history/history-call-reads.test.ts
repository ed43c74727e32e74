import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { callReads, type CallReads } from "@/lib/calls/call-store";
import type { CallFilters } from "@/lib/calls/list-calls";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { MOVE_AFTER, NOVEMBER, NOW, seed } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { historyCallReads } from "./history-call-reads";
import { moveMonth } from "./move-month";
import { openTestHistoryStore } from "./testing/history-test-store";

// GET /v1/calls across the boundary (docs/contract.md "History tier"): every page of every listing below is the same
// text, with the same cursors, whether November is in PostgreSQL or (but for its cut day) in ClickHouse.
describeOnEngines("listing calls across the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let groupIds: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    ({ groupIds } = await seed(db()));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  /** Every page of a listing, pageSize 2, each page as its JSON text and next cursor. */
  async function allPages(reads: CallReads, principal: Principal, filters: CallFilters) {
    const pages: { callsJson: string; hasMore: boolean; nextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await reads.listCallsJson(principal, filters, { pageSize: 2, cursor });
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 20);
    return pages;
  }

  const listings = (): [Principal, CallFilters][] => [
    [testPrincipal(null), {}],
    [testPrincipal(null, ["calls:read", "calls:read_cost"]), {}],
    [testPrincipal(groupIds[1]), {}],
    [testPrincipal(null), { startTimeGte: new Date("2030-11-03T10:30:00Z"), startTimeLte: new Date("2030-12-10Z") }],
    [testPrincipal(null, ["calls:read", "calls:read_cost"]), { to: "2125", direction: "outbound", toPrefix: "1" }],
    [testPrincipal(null), { billingGroupId: groupIds[0], fromPrefix: "4930" }],
    [testPrincipal(null), { hangupCause: "normal_clearing" }],
    [testPrincipal(null), { uuid: "move-4" }],
  ];

  it("answers every page and cursor of GET /v1/calls byte for byte as before the month moved", async () => {
    const before = [];
    for (const [principal, filters] of listings()) before.push(await allPages(callReads(db()), principal, filters));
    expect(before[0].map((p) => (JSON.parse(p.callsJson) as unknown[]).length)).toEqual([2, 2, 2, 1]);
    // Each listing shows calls of November (moved) and of December or the cut day (hot).
    expect(
      before.map(
        (pages) =>
          pages
            .map((p) => p.callsJson)
            .join("")
            .match(/"startTime":"2030-1[12]/g)?.length,
      ),
    ).toEqual([7, 7, 3, 5, 7, 4, 2, 1]);
    // GET /v1/calls/{id} of every call, with and without the cost fields.
    const principals = [testPrincipal(null), testPrincipal(null, ["calls:read", "calls:read_cost"])];
    const calls = before[0].flatMap(
      (p) => JSON.parse(p.callsJson) as { id: string; billingGroupId: string; startTime: string }[],
    );
    expect(calls).toHaveLength(7);
    const details = async (reads: CallReads) => {
      const out = [];
      for (const principal of principals) for (const { id } of calls) out.push(await reads.getCall(principal, id));
      return out;
    };
    const detailsBefore = await details(callReads(db()));
    // Exports: every export page (background exports) and the streamed CSV, with and without the cost fields.
    const exports = async (reads: CallReads) => {
      const out = [];
      for (const [principal, filters] of listings()) {
        let cursor: string | undefined;
        do {
          const page = await reads.exportPage(principal, filters, { pageSize: 3, cursor });
          out.push(page);
          cursor = page.nextCursor;
        } while (cursor && out.length < 100);
        out.push(await new Response(await reads.exportCsv(principal, filters, 2)).text());
      }
      return out;
    };
    const exportsBefore = await exports(callReads(db()));
    await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) });
    const reads = historyCallReads(callReads(db()), db(), store);
    const after = [];
    for (const [principal, filters] of listings()) after.push(await allPages(reads, principal, filters));
    expect(after).toEqual(before);
    expect(await exports(reads)).toEqual(exportsBefore);
    // The first listing's CSV: its header, 7 calls and the last line's end.
    expect((exportsBefore.find((e) => typeof e === "string") as string).split("\r\n")).toHaveLength(9);
    // Each call by id as before, moved or not; another group's moved call is the same 404 as an unknown id.
    expect(await details(reads)).toEqual(detailsBefore);
    const movedOfGroup0 = calls.find((c) => c.billingGroupId === groupIds[0] && c.startTime.startsWith("2030-11"))!;
    const refused = await reads.getCall(testPrincipal(groupIds[1]), movedOfGroup0.id).catch((e: unknown) => e);
    const unknown = await reads.getCall(testPrincipal(groupIds[1]), "999999999").catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "not_found", detail: `No call with id "${movedOfGroup0.id}".` });
    expect(unknown).toMatchObject({ code: "not_found" });
    expect(
      await callReads(db())
        .getCall(principals[0], movedOfGroup0.id)
        .catch((e: unknown) => e),
    ).toMatchObject({
      code: "not_found",
    });
    // A month in the middle of its move (copied, not removed) is in both stores: listed once, from PostgreSQL.
    const stopped = await moveMonth(db(), store, {
      month: new Date("2030-12-01T00:00:00Z"),
      moveAfterMonths: 2,
      now: new Date(NOW),
      onStep: (step) => {
        if (step === "copied") throw new Error("stopped after copying");
      },
    }).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ message: "stopped after copying" });
    const whileMoving = [];
    for (const [principal, filters] of listings()) whileMoving.push(await allPages(reads, principal, filters));
    expect(whileMoving).toEqual(before);
    // The hot store alone no longer has them: the history tier is what answers.
    expect(await allPages(callReads(db()), ...listings()[0])).not.toEqual(before[0]);
  });
});
