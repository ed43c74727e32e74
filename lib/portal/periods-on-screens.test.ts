import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { listAccountsOverview } from "@/lib/billing/accounts-overview";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { callReads } from "@/lib/calls/call-store";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { parseMicros } from "@/lib/money/micros";
import { summarizeUsage, usageFiltersFromQuery } from "@/lib/usage/summarize-usage";
import { usageQuerySchema } from "@/lib/usage/schemas";
import { dayInZone } from "@/lib/time/zoned-time";
import { accountTimeZones } from "./account-zones";
import { monthOf } from "./period";
import { reportToUsageQuery } from "./report";

// Issue 30 item 8: one account's "this month" is the same figure on the dashboard, the console's Accounts, Reports and
// GET /v1/usage, all in the account's own zone ($297.08 on Accounts in UTC beside $297.61 on Reports was the defect).
// Asia/Kolkata (+05:30): its midnight cuts a UTC hour, so the quarter rollup is read too.

const ZONE = "Asia/Kolkata";
const NOW = new Date("2026-12-01T12:00:00Z"); // 17:30 on 1 Dec in Kolkata

describeOnEngines("periods on screens", (handle) => {
  let group: string;
  const insertCall = (startIso: string, priceMicros: bigint) =>
    handle().db.execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time,
        end_time, duration, bill_duration, currency, rated, price_micros)
      VALUES (${crypto.randomUUID()}, ${group}, 'outbound', '100', '4420', ${startIso}::timestamptz,
        ${startIso}::timestamptz, 10, 10, 'USD', true, ${priceMicros})`);

  beforeAll(async () => {
    group = (await createBillingGroup(handle().db, { name: "Mumbai", currency: "USD" })).id;
    await setBillingGroupInvoicing(handle().db, group, { timeZone: ZONE });
    await insertCall("2026-11-30T18:15:00Z", 1_000_000n); // 23:45 on 30 Nov local: November
    await insertCall("2026-11-30T18:45:00Z", 20_000_000n); // 00:15 on 1 Dec local: December (same UTC hour)
    await insertCall("2026-11-30T23:30:00Z", 300_000_000n); // last UTC day of November, 05:00 on 1 Dec local
    await insertCall("2026-12-01T10:00:00Z", 4_000_000_000n); // 1 Dec in both
  });

  const december = 4_320_000_000n;

  it("gives the account's this month and today in its zone, the same amount on every screen and in GET /v1/usage", async () => {
    const db = handle().db;
    const principal = testPrincipal(group);
    const zones = await accountTimeZones(db, principal);
    expect(zones).toEqual({ [group]: ZONE });
    expect(await accountTimeZones(db, testPrincipal(null), [group])).toEqual({ [group]: ZONE });
    expect(await accountTimeZones(db, principal, ["bg_someone_else"])).toEqual({});

    // GET /v1/usage, by month in the account's zone.
    const usage = await summarizeUsage(db, principal, {}, { groupBy: "month", timeZone: ZONE });
    expect(usage.rows.map((r) => [r.key, parseMicros(r.price)])).toEqual([
      ["2026-11", 1_000_000n],
      ["2026-12", december],
    ]);

    // The dashboard: spend per day and this month, in the account's zone.
    const [series] = await callReads(db).spendPerDay(principal, { now: NOW, timeZone: zones[group] });
    expect(series.month).toEqual({ key: "2026-12", spendMicros: december, calls: 3 });
    expect(series.days.at(-1)).toEqual({ day: "2026-12-01", spendMicros: december, calls: 3 });
    expect(series.days.at(-2)).toEqual({ day: "2026-11-30", spendMicros: 1_000_000n, calls: 1 });

    // The console's Accounts: the row's today and this month, in the row's zone.
    const overview = await listAccountsOverview(db, { search: "Mumbai", now: NOW });
    expect(overview.rows.map((r) => [r.timeZone, r.todaySpendMicros, r.monthSpendMicros])).toEqual([
      [ZONE, december, december],
    ]);

    // Reports, opened on this month of the account's zone (what the page asks GET /v1/usage).
    const today = dayInZone(NOW, zones[group]);
    const query = reportToUsageQuery({ groupBy: "day", ...monthOf(today) }, zones[group]);
    const parsed = usageQuerySchema.parse(Object.fromEntries(query));
    const report = await summarizeUsage(db, principal, usageFiltersFromQuery(parsed), {
      groupBy: parsed.groupBy,
      timeZone: parsed.timeZone,
    });
    expect(report.totals.map((t) => [t.currency, parseMicros(t.price)])).toEqual([["USD", december]]);
    expect(report.rows.map((r) => r.key)).toEqual(["2026-12-01"]);
  });

  it("reads a whole-hour zone's cut UTC day from the hourly rollup (Asia/Tokyo: all four calls are 1 Dec there)", async () => {
    const db = handle().db;
    await setBillingGroupInvoicing(db, group, { timeZone: "Asia/Tokyo" });
    try {
      const principal = testPrincipal(group);
      const usage = await summarizeUsage(db, principal, {}, { groupBy: "month", timeZone: "Asia/Tokyo" });
      expect(usage.rows.map((r) => [r.key, parseMicros(r.price)])).toEqual([["2026-12", 4_321_000_000n]]);
      const [series] = await callReads(db).spendPerDay(principal, { now: NOW, timeZone: "Asia/Tokyo" });
      expect(series.month.spendMicros).toBe(4_321_000_000n);
      const [row] = (await listAccountsOverview(db, { search: "Mumbai", now: NOW })).rows;
      expect([row.todaySpendMicros, row.monthSpendMicros]).toEqual([4_321_000_000n, 4_321_000_000n]);
    } finally {
      await setBillingGroupInvoicing(db, group, { timeZone: ZONE });
    }
  });

  it("gives this month in the zone mid-month: a call late on the previous month's last evening is not in it, one just after midnight is", async () => {
    const db = handle().db;
    const other = (await createBillingGroup(db, { name: "Pune", currency: "USD" })).id;
    await setBillingGroupInvoicing(db, other, { timeZone: ZONE });
    const now = new Date("2026-11-28T13:50:00Z"); // 19:20 on 28 Nov in Kolkata
    const at = async (startIso: string, priceMicros: bigint) =>
      db.execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time,
          end_time, duration, bill_duration, currency, rated, price_micros)
        VALUES (${crypto.randomUUID()}, ${other}, 'outbound', '100', '4420', ${startIso}::timestamptz,
          ${startIso}::timestamptz, 10, 10, 'USD', true, ${priceMicros})`);
    await at("2026-10-31T18:05:00Z", 1_000_000n); // 23:35 on 31 Oct local: October
    await at("2026-10-31T19:00:00Z", 20_000_000n); // 00:30 on 1 Nov local
    await at("2026-10-31T23:30:00Z", 300_000_000n); // 05:00 on 1 Nov local
    await at("2026-11-28T13:48:00Z", 4_000_000_000n); // today
    const principal = testPrincipal(other);
    const usage = await summarizeUsage(db, principal, {}, { groupBy: "month", timeZone: ZONE });
    expect(usage.rows.map((r) => [r.key, parseMicros(r.price)])).toEqual([
      ["2026-10", 1_000_000n],
      ["2026-11", 4_320_000_000n],
    ]);
    const [series] = await callReads(db).spendPerDay(principal, { now, timeZone: ZONE });
    expect(series.month.spendMicros).toBe(4_320_000_000n);
    const [row] = (await listAccountsOverview(db, { search: "Pune", now })).rows;
    expect([row.todaySpendMicros, row.monthSpendMicros]).toEqual([4_000_000_000n, 4_320_000_000n]);
  });

  it("keeps an account in UTC on UTC days and months", async () => {
    const db = handle().db;
    await setBillingGroupInvoicing(db, group, { timeZone: "UTC" });
    try {
      const [series] = await callReads(db).spendPerDay(testPrincipal(group), { now: NOW, timeZone: "UTC" });
      expect(series.month.spendMicros).toBe(4_000_000_000n);
      const [row] = (await listAccountsOverview(db, { search: "Mumbai", now: NOW })).rows;
      expect([row.todaySpendMicros, row.monthSpendMicros]).toEqual([4_000_000_000n, 4_000_000_000n]);
    } finally {
      await setBillingGroupInvoicing(db, group, { timeZone: ZONE });
    }
  });
});
