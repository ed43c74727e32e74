import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { callReads, type CallReads } from "@/lib/calls/call-store";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { MOVE_AFTER, NOVEMBER, NOW, seedTiers } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import { eraseAccountCalls } from "./erase-calls";
import { historyCallReads } from "./history-call-reads";
import { tierChargesTable } from "./history-tier-charges";
import { moveMonth } from "./move-month";
import { retainMonths } from "./retain-months";
import { openTestHistoryStore } from "./testing/history-test-store";

// Reseller tier charges across the history boundary (docs/contract.md "History tier", "Reseller tiers"): moving a
// month takes its calls' call_tier_charges to ClickHouse with them, and a reseller's cost view (buyCost, margin,
// buyRate) of a moved call answers as it did hot; retention and erasure take the tier rows with the calls.

const by = { actor: { type: "api_key" as const, id: "key_test", label: "test" }, address: "127.0.0.1" };

describeOnEngines("reseller tier charges across the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let g: { r: string; s: string; c: string };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    g = await seedTiers(db());
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  const COST = ["calls:read", "calls:read_cost"] as const;
  const reseller = (own: string, subtree: string[], scopes: readonly string[] = COST): Principal => ({
    ...testPrincipal(own, scopes as typeof COST),
    reachGroupIds: subtree,
  });
  const principals = () => [
    reseller(g.r, [g.r, g.s, g.c]),
    reseller(g.s, [g.s, g.c]),
    reseller(g.r, [g.r, g.s, g.c], ["calls:read"]),
    testPrincipal(null, [...COST]),
  ];

  /** Every listing page (pageSize 2), every call's detail and the CSV export of each principal. */
  async function everything(reads: CallReads) {
    const out: unknown[] = [];
    for (const principal of principals()) {
      let cursor: string | undefined;
      const ids: string[] = [];
      do {
        const page = await reads.listCallsJson(principal, {}, { pageSize: 2, cursor });
        out.push(page);
        ids.push(...(JSON.parse(page.callsJson) as { id: string }[]).map((c) => c.id));
        cursor = page.nextCursor;
      } while (cursor && out.length < 50);
      for (const id of ids) out.push(await reads.getCall(principal, id));
      out.push(await new Response(await reads.exportCsv(principal, {}, 2)).text());
    }
    return out;
  }

  const historyTierRows = async (where = "1") => {
    const result = await store.client.query({
      query: `SELECT toString(count()) AS n FROM ${tierChargesTable(store)} WHERE ${where}`,
      format: "JSONEachRow",
    });
    return Number((await result.json<{ n: string }>())[0].n);
  };
  const hotTierRows = async () =>
    Number(
      (
        await queryRows<{ n: string }>(
          db(),
          sql`SELECT count(*)::text AS n FROM call_tier_charges WHERE start_time < '2030-12-01T00:00:00Z'`,
        )
      )[0].n,
    );

  it("moves a month's tier charges with its calls; a reseller's listing, details and exports answer as before", async () => {
    const before = await everything(callReads(db()));
    // The reseller sees its own buy cost and margin on its customers' calls (what the move must keep).
    const rView = JSON.parse((before[0] as { callsJson: string }).callsJson) as { buyCost: number | null }[];
    expect(rView.some((c) => c.buyCost !== null)).toBe(true);
    // C's 3 November calls have two tiers (S, R), S's one call has one (R); R's own call none.
    expect(await hotTierRows()).toBe(7);

    // Stopped right after the tier charges' copy (the state still copying): the next run copies both again, once.
    const stoppedTiers = await moveMonth(db(), store, {
      month: NOVEMBER,
      moveAfterMonths: MOVE_AFTER,
      now: new Date(NOW),
      onStep: (step) => {
        if (step === "tiers") throw new Error("stopped after the tier charges");
      },
    }).catch((e: unknown) => e);
    expect(stoppedTiers).toMatchObject({ message: "stopped after the tier charges" });
    expect(await historyTierRows()).toBe(7);
    // Stopped once copied, with a tier charge then doubled in ClickHouse: the verification sees it, the month is
    // copied again (its tier partition dropped first), and history ends with each charge once.
    const november = { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) };
    const stoppedCopied = await moveMonth(db(), store, {
      ...november,
      onStep: (step) => {
        if (step === "copied") throw new Error("stopped after copying");
      },
    }).catch((e: unknown) => e);
    expect(stoppedCopied).toMatchObject({ message: "stopped after copying" });
    expect(await historyTierRows()).toBe(7);
    await store.client.command({
      query: `INSERT INTO ${tierChargesTable(store)} SELECT * FROM ${tierChargesTable(store)} LIMIT 1`,
    });
    expect(await historyTierRows()).toBe(8);
    expect(await moveMonth(db(), store, november)).toMatchObject({ state: "removed", calls: "5" });
    expect(await hotTierRows()).toBe(0);
    expect(await historyTierRows()).toBe(7);
    expect(await everything(historyCallReads(callReads(db()), db(), store))).toEqual(before);

    // A tier re-rated after the verification (here: a charge changed by hand) is caught by the removal's check: the
    // month is copied again, and history holds the charge as it is now.
    const december = new Date("2030-12-01T00:00:00Z");
    const stopped = await moveMonth(db(), store, {
      month: december,
      moveAfterMonths: 2,
      now: new Date(NOW),
      onStep: (step) => {
        if (step === "verified") throw new Error("stopped after verifying");
      },
    }).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ message: "stopped after verifying" });
    await db().execute(
      sql`UPDATE call_tier_charges SET price_micros = price_micros + 1 WHERE tier_group_id = ${g.r}
          AND start_time >= '2030-12-01T00:00:00Z'`,
    );
    const [{ price }] = await queryRows<{ price: string }>(
      db(),
      sql`SELECT price_micros::text AS price FROM call_tier_charges WHERE tier_group_id = ${g.r}
          AND start_time >= '2030-12-01T00:00:00Z'`,
    );
    expect(await moveMonth(db(), store, { month: december, moveAfterMonths: 2, now: new Date(NOW) })).toMatchObject({
      state: "removed",
    });
    const moved = await store.client.query({
      query: `SELECT toString(price_micros) AS price FROM ${tierChargesTable(store)}
              WHERE tier_group_id = '${g.r}' AND start_time >= ${december.getTime()}`,
      format: "JSONEachRow",
    });
    expect(await moved.json()).toEqual([{ price }]);
    const [attempts] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT copy_attempts AS n FROM history_moves WHERE month = '2030-12-01T00:00:00Z'`,
    );
    expect(Number(attempts.n)).toBe(2);

    // Erasure of the customer's calls erases their tier rows in history too; the sub-reseller's stay.
    const erased = await eraseAccountCalls(db(), store, g.c, { before: new Date("2030-12-01T00:00:00Z") }, by);
    expect(erased.erased).toEqual({ hot: 0, history: 3, total: 3 });
    expect(await historyTierRows(`billing_group_id = '${g.c}' AND start_time < ${december.getTime()}`)).toBe(0);
    expect(await historyTierRows(`start_time < ${december.getTime()}`)).toBe(1);

    // Retention drops the month's tier partition with its calls' (November; December is kept).
    await retainMonths(db(), store, { retentionMonths: 3, now: new Date(NOW) });
    expect(await historyTierRows(`start_time < ${december.getTime()}`)).toBe(0);
    expect(await historyTierRows()).toBe(2);
  });
});
