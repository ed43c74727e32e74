import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { callReads } from "@/lib/calls/call-store";
import type { CallFilters } from "@/lib/calls/list-calls";
import { serializeCall } from "@/lib/calls/serialize-call";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { historyCallReads } from "./history-call-reads";
import { callsTable, historyRowToStoredCall } from "./history-store";
import { openTestHistoryStore } from "./testing/history-test-store";

// A moved month's pages read keys first (history-call-reads.ts pageRowsByKeys): every page, deep into a listing with
// filters, is exactly the whole-row query's `ORDER BY start_time DESC, id DESC` slice, ties on start_time across groups
// included (three groups' calls share each instant, so the keyset's id decides). An instant every 400 s over 9 days:
// an hour's window holds 27 calls, so filtered pages widen their windows, and deep ones start inside an instant.
describeOnEngines("history pages read keys first", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  const NOVEMBER = Date.parse("2030-11-01T00:00:00Z");
  const CALLS = 6000;

  beforeAll(async () => {
    store = await openTestHistoryStore();
    await store.client.command({
      query: `INSERT INTO ${callsTable(store)} (id, uuid, billing_group_id, direction, from_number, to_number,
                start_time, end_time, duration, bill_duration, hangup_cause, currency, rated, price_micros, created_at)
              SELECT toInt64(number + 1), concat('keys-', toString(number)), concat('bg_keys', toString(number % 3)),
                if(number % 4 = 0, 'inbound', 'outbound'), concat('1555', toString(number % 7)),
                concat(if(number % 5 = 0, '44', '1'), toString(2125550000 + number)),
                toInt64(${NOVEMBER} + intDiv(number, 3) * 400000), toInt64(${NOVEMBER} + intDiv(number, 3) * 400000 + 60000),
                toInt32(60), toInt32(60), toNullable(if(number % 6 = 1, 'USER_BUSY', 'NORMAL_CLEARING')), 'USD',
                toUInt8(1), toInt64(10000 + number), toInt64(${NOVEMBER})
              FROM numbers(${CALLS})`,
    });
    await db().execute(
      sql`INSERT INTO history_moves (month, state, copy_attempts, calls) VALUES ('2030-11-01T00:00:00Z', 'removed', 1, ${CALLS})`,
    );
  });
  afterAll(async () => {
    await store?.drop();
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
