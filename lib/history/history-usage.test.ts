import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { callReads } from "@/lib/calls/call-store";
import type { Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { ISSUER, MOVE_AFTER, NOVEMBER, NOW } from "@/lib/testing/history-months";
import { testPrincipal } from "@/lib/testing/test-principal";
import type { UsageGroupBy } from "@/lib/usage/schemas";
import { summarizeUsage, type UsageFilters } from "@/lib/usage/summarize-usage";
import { historyCallReads } from "./history-call-reads";
import { moveMonth } from "./move-month";
import { openTestHistoryStore } from "./testing/history-test-store";

// GET /v1/usage across the boundary (docs/contract.md "History tier"): a report whose range cuts hours (or days) at
// its ends reads those partial buckets from calls; once November is moved they come from ClickHouse, and every report
// below is the same text as before the move.

/** Two groups (UTC; New York, whose month ends cut a UTC day that stays hot), two destinations, calls at odd minutes. */
async function seedUsage(db: Db): Promise<string[]> {
  const groups: string[] = [];
  for (const [name, zone] of [
    ["UTC", "UTC"],
    ["NY", "America/New_York"],
  ] as const) {
    const group = await createBillingGroup(db, { name, currency: "USD" });
    await setBillingGroupInvoicing(db, group.id, { timeZone: zone });
    await db.execute(sql`UPDATE billing_groups SET created_at = '2030-10-05T12:00:00Z' WHERE id = ${group.id}`);
    const deck = "prefix,rate,increment,description\n1,1,60/60,USA\n44,0.123457,1/1,UK\n";
    await importSellRates(db, group.id, parseRateCsv(deck), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    groups.push(group.id);
  }
  const at: [number, string, number, string][] = [
    [0, "2030-10-31T23:30:00Z", 2, "12125550100"],
    [0, "2030-11-01T00:03:00Z", 2, "12125550100"],
    [0, "2030-11-01T00:20:00Z", 3, "447700900123"],
    [0, "2030-11-01T00:50:00Z", 1, "12125550100"],
    [0, "2030-11-01T01:10:00Z", 4, "447700900123"],
    [0, "2030-11-03T10:05:00Z", 2, "12125550100"],
    [0, "2030-11-03T10:10:00.250Z", 7, "447700900123"],
    [0, "2030-11-03T10:30:00Z", 2, "12125550100"],
    [0, "2030-11-03T10:55:00Z", 5, "447700900123"],
    [0, "2030-11-03T11:00:00.250Z", 3, "12125550100"],
    [0, "2030-11-04T10:45:00Z", 2, "12125550100"],
    [0, "2030-11-30T23:05:00Z", 1, "447700900123"],
    [0, "2030-11-30T23:30:00Z", 6, "12125550100"],
    [0, "2030-11-30T23:59:59.500Z", 1, "12125550100"],
    [0, "2030-12-01T00:03:00Z", 2, "12125550100"],
    [0, "2030-12-01T00:30:00Z", 2, "447700900123"],
    [1, "2030-11-01T00:20:00Z", 4, "12125550100"], // New York's October, on the cut UTC day: stays
    [1, "2030-11-03T10:20:00Z", 5, "447700900123"],
    [1, "2030-11-03T10:40:00Z", 3, "12125550100"],
    [1, "2030-11-30T23:15:00Z", 6, "12125550100"],
    [1, "2030-11-30T23:45:00Z", 2, "447700900123"],
  ];
  await ingestCdrs(
    db,
    at.map(([g, start, minutes, to], i) => ({
      ...answeredCdr({
        uuid: `usage-${i}`,
        billingGroupId: groups[g],
        startMs: Date.parse(start),
        seconds: minutes * 60 + i,
        to,
        direction: i % 3 === 0 ? "inbound" : "outbound",
      }),
      hangupCause: i % 2 === 0 ? "NORMAL_CLEARING" : "USER_BUSY",
    })),
  );
  // A carrier's cost on some calls (the platform's margin), none on the others.
  const supplier = await createSupplier(db, { name: "Carrier" });
  await db.execute(
    sql`UPDATE calls SET supplier_id = ${supplier.id}, buy_cost_micros = price_micros / 3 WHERE uuid ~ '^usage-[0-9]*[02468]$'`,
  );
  await runInvoices(db, { now: new Date(NOW), issuer: ISSUER });
  return groups;
}

describeOnEngines("GET /v1/usage across the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let groupIds: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    groupIds = await seedUsage(db());
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  const ranges: [string, string][] = [
    ["2030-11-03T10:07:00Z", "2030-11-03T10:52:00Z"], // inside one hour
    ["2030-11-03T10:07:00Z", "2030-11-04T10:52:00Z"], // ragged hours and days
    ["2030-10-31T23:07:00Z", "2030-11-01T00:52:00Z"], // the moved month's start
    ["2030-11-30T23:07:00Z", "2030-12-01T00:52:00Z"], // its end
    ["2030-11-01T00:52:00Z", "2030-11-30T23:07:00Z"], // day edges inside it
    ["2030-10-31T23:52:00Z", "2030-12-01T00:07:00Z"], // the whole month, ragged
  ];
  const reports = (): [Principal, UsageFilters, UsageGroupBy, string][] => {
    const out: [Principal, UsageFilters, UsageGroupBy, string][] = [];
    const platform = testPrincipal(null);
    const platformCost = testPrincipal(null, ["calls:read", "calls:read_cost"]);
    const bound = testPrincipal(groupIds[0], ["calls:read", "calls:read_cost"]);
    for (const [gte, lte] of ranges) {
      const range = { startTimeGte: new Date(gte), startTimeLte: new Date(lte) };
      for (const groupBy of ["destination", "day", "account", "month", "direction", "hangupCause"] as const)
        for (const principal of [platform, platformCost]) out.push([principal, range, groupBy, "UTC"]);
      out.push([platformCost, range, "supplier", "UTC"]);
      out.push([platformCost, range, "day", "America/New_York"]);
      out.push([platform, range, "day", "Asia/Kolkata"]);
      out.push([bound, range, "destination", "UTC"]);
      out.push([platformCost, { ...range, account: groupIds[1] }, "day", "UTC"]);
      // Filters no rollup holds (the whole range from calls), and a hangup cause by destination (usage_daily has none).
      out.push([platformCost, { ...range, to: "2125", direction: "outbound" }, "destination", "UTC"]);
      out.push([platform, { ...range, toPrefix: "44" }, "day", "UTC"]);
      out.push([platformCost, { ...range, hangupCause: "normal_clearing" }, "destination", "UTC"]);
      out.push([platform, { ...range, direction: "inbound" }, "hangupCause", "UTC"]);
    }
    return out;
  };

  async function answers(reads: ReturnType<typeof callReads>) {
    const out: string[] = [];
    for (const [principal, filters, groupBy, timeZone] of reports())
      out.push(JSON.stringify(await summarizeUsage(db(), principal, filters, { groupBy, timeZone }, reads)));
    return out;
  }

  it("answers every report with ragged ends byte for byte as before the month moved", async () => {
    const before = await answers(callReads(db()));
    // Each range's first report counts calls (no empty report proves nothing).
    for (let i = 0; i < before.length; i += reports().length / ranges.length)
      expect((JSON.parse(before[i]) as { totals: { calls: number }[] }).totals[0]?.calls).toBeGreaterThan(0);
    const moved = await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) });
    expect(moved).toMatchObject({ state: "removed", calls: "17" });
    const after = await answers(historyCallReads(callReads(db()), db(), store));
    for (let i = 0; i < before.length; i++) expect([i, after[i]]).toEqual([i, before[i]]);
    // The hot store alone no longer counts the moved calls of the partial hours.
    const hotOnly = await answers(callReads(db()));
    const differ = hotOnly.filter((r, i) => r !== before[i]).length;
    expect(differ).toBeGreaterThan(reports().length / 2);
  });
});
