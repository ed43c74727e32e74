import { sql } from "drizzle-orm";
import { testPrincipal } from "@/lib/testing/test-principal";
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import { formatMicros } from "@/lib/money/micros";
import { importSellRates } from "@/lib/rating/import-rates";
import { claimCallUuids } from "@/lib/testing/claim-call-uuids";
import { recordingDb } from "@/lib/testing/recording-db";
import { insertUuidLookupCalls } from "@/lib/testing/uuid-lookup-calls";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { callPartitionNames, explainAnalyzeText, partitionsRead } from "@/lib/testing/explain-plan";
import { listCallsQuerySchema } from "@/lib/calls/schemas";
import { FIRST_INSTANT, LAST_INSTANT } from "@/lib/http/query-params";
import type { UsageGroupBy, UsageReport } from "./schemas";
import { planUsage, splitMonths, splitWeeks } from "@/lib/calls/usage-sums";
import { summarizeUsage, type UsageFilters } from "./summarize-usage";

const principal = testPrincipal;
const COST: Scope[] = ["calls:read", "calls:read_cost"];

type CallInsert = typeof calls.$inferInsert;
function withoutId(row: typeof calls.$inferSelect): CallInsert {
  const copy: Partial<typeof calls.$inferSelect> = { ...row };
  delete copy.id;
  delete copy.createdAt;
  return copy as CallInsert;
}

describe("planUsage", () => {
  const d = (s: string) => new Date(s);
  it("reads whole hours from the rollup and the partial hours at the ends from calls", () => {
    expect(planUsage({ startTimeGte: d("2026-01-01T10:20:00Z"), startTimeLte: d("2026-01-02T03:59:59.999Z") })).toEqual(
      {
        rollup: { from: d("2026-01-01T11:00:00Z"), until: d("2026-01-02T04:00:00Z") },
        callRanges: [{ gte: d("2026-01-01T10:20:00Z"), lte: d("2026-01-01T10:59:59.999Z") }],
      },
    );
    expect(planUsage({ startTimeGte: d("2026-01-01T10:00:00Z"), startTimeLte: d("2026-01-01T12:30:00Z") })).toEqual({
      rollup: { from: d("2026-01-01T10:00:00Z"), until: d("2026-01-01T12:00:00Z") },
      callRanges: [{ gte: d("2026-01-01T12:00:00Z"), lte: d("2026-01-01T12:30:00Z") }],
    });
  });
  it("reads a range inside one hour, and any `to` filter, from calls only", () => {
    const inside = { startTimeGte: d("2026-01-01T10:05:00Z"), startTimeLte: d("2026-01-01T10:55:00Z") };
    expect(planUsage(inside)).toEqual({ callRanges: [{ gte: inside.startTimeGte, lte: inside.startTimeLte }] });
    expect(planUsage({ to: "44" })).toEqual({ callRanges: [{ gte: undefined, lte: undefined }] });
    expect(planUsage({})).toEqual({ rollup: { from: undefined, until: undefined }, callRanges: [] });
  });
  it("plans whole UTC days for the daily rollup", () => {
    expect(
      planUsage({ startTimeGte: d("2026-01-01T23:00:00Z"), startTimeLte: d("2026-01-31T22:59:59.999Z") }, 86_400_000),
    ).toEqual({
      rollup: { from: d("2026-01-02T00:00:00Z"), until: d("2026-01-31T00:00:00Z") },
      callRanges: [
        { gte: d("2026-01-01T23:00:00Z"), lte: d("2026-01-01T23:59:59.999Z") },
        { gte: d("2026-01-31T00:00:00Z"), lte: d("2026-01-31T22:59:59.999Z") },
      ],
    });
  });
});

describe("splitWeeks", () => {
  const d = (s: string) => new Date(s);
  it("reads whole UTC weeks, Monday to Monday, and the days around them", () => {
    // Tuesday 2026-09-01 to Saturday 2026-10-31 (whole days): weeks from Monday 09-07 to Monday 10-26.
    expect(splitWeeks({ from: d("2026-09-01T00:00:00Z"), until: d("2026-11-01T00:00:00Z") })).toEqual({
      weeks: { from: d("2026-09-07T00:00:00Z"), until: d("2026-10-26T00:00:00Z") },
      days: [
        { from: d("2026-09-01T00:00:00Z"), until: d("2026-09-07T00:00:00Z") },
        { from: d("2026-10-26T00:00:00Z"), until: d("2026-11-01T00:00:00Z") },
      ],
    });
    // Bounds on Mondays: weeks only; open bounds: weeks to the open side.
    const mondays = { from: d("2026-08-03T00:00:00Z"), until: d("2026-10-26T00:00:00Z") };
    expect(splitWeeks(mondays)).toEqual({ weeks: mondays, days: [] });
    expect(splitWeeks({ until: d("2026-10-28T00:00:00Z") })).toEqual({
      weeks: { from: undefined, until: d("2026-10-26T00:00:00Z") },
      days: [{ from: d("2026-10-26T00:00:00Z"), until: d("2026-10-28T00:00:00Z") }],
    });
    expect(splitWeeks({})).toEqual({ weeks: { from: undefined, until: undefined }, days: [] });
  });
  it("reads days only when no week is whole, or a week would leave the years a filter may name", () => {
    const short = { from: d("2026-10-27T00:00:00Z"), until: d("2026-11-02T00:00:00Z") };
    expect(splitWeeks(short)).toEqual({ days: [short] });
    const last = { from: new Date(LAST_INSTANT) };
    expect(splitWeeks(last)).toEqual({ days: [last] });
  });
});

describe("splitMonths", () => {
  const d = (s: string) => new Date(s);
  it("reads whole UTC months, then the whole weeks and the days of what is left", () => {
    // Monday 2026-08-03 to Saturday 2026-10-31 (the bench's 90 days): September and October, then August's weeks.
    expect(splitMonths({ from: d("2026-08-03T00:00:00Z"), until: d("2026-11-01T00:00:00Z") })).toEqual({
      months: { from: d("2026-09-01T00:00:00Z"), until: d("2026-11-01T00:00:00Z") },
      weeks: [{ from: d("2026-08-03T00:00:00Z"), until: d("2026-08-31T00:00:00Z") }],
      days: [{ from: d("2026-08-31T00:00:00Z"), until: d("2026-09-01T00:00:00Z") }],
    });
    // Open to the left: every month before the bound.
    expect(splitMonths({ until: d("2026-11-03T00:00:00Z") })).toEqual({
      months: { from: undefined, until: d("2026-11-01T00:00:00Z") },
      weeks: [],
      days: [{ from: d("2026-11-01T00:00:00Z"), until: d("2026-11-03T00:00:00Z") }],
    });
    // No whole month: weeks and days only, as splitWeeks.
    const short = { from: d("2026-09-02T00:00:00Z"), until: d("2026-09-30T00:00:00Z") };
    expect(splitMonths(short)).toEqual({ weeks: [splitWeeks(short).weeks], days: splitWeeks(short).days });
  });
  it("keeps every bucket within the years a filter may name", () => {
    for (const days of [{ from: new Date(LAST_INSTANT) }, { until: new Date(FIRST_INSTANT) }, {}]) {
      const split = splitMonths(days);
      const dates = [split.months, ...split.weeks, ...split.days].flatMap((r) => (r ? [r.from, r.until] : []));
      expect(dates.every((t) => t === undefined || /^\d{4}-/.test(t.toISOString()))).toBe(true);
    }
    expect(splitMonths({})).toEqual({ months: { from: undefined, until: undefined }, weeks: [], days: [] });
  });
});

describe("planUsage at the ends of the range a date filter may name", () => {
  // The bounds are written into SQL with toISOString(), whose year has four digits only in 0001..9999
  // ("+010000-01-01..." is not a timestamp PostgreSQL reads: a 500 once, for startTime[gte]=9999-12-31T23:00:01Z).
  const fourDigitYear = (t: Date | undefined) => t === undefined || /^\d{4}-/.test(t.toISOString());
  const accepted = (value: string) => listCallsQuerySchema.safeParse({ "startTime[gte]": value }).success;
  it("never rounds an accepted bound out of years 0001..9999, by the hour or the day", () => {
    const edges = [
      FIRST_INSTANT,
      FIRST_INSTANT + 1,
      FIRST_INSTANT + 3_599_999,
      LAST_INSTANT - 86_400_001,
      LAST_INSTANT - 3_600_001,
      LAST_INSTANT - 1,
      LAST_INSTANT,
    ].map((ms) => new Date(ms));
    for (const gte of [undefined, ...edges])
      for (const lte of [undefined, ...edges]) {
        if (gte && lte && gte > lte) continue;
        for (const grain of [3_600_000, 86_400_000]) {
          const plan = planUsage({ startTimeGte: gte, startTimeLte: lte }, grain);
          const dates = [plan.rollup?.from, plan.rollup?.until, ...plan.callRanges.flatMap((r) => [r.gte, r.lte])];
          expect(dates.every(fourDigitYear), `${gte?.toISOString()} ${lte?.toISOString()} ${grain}`).toBe(true);
        }
      }
    // ...and the schema agrees about what is accepted: the edges are, the next millisecond is not.
    expect(accepted(new Date(LAST_INSTANT).toISOString())).toBe(true);
    expect(accepted(new Date(LAST_INSTANT + 1).toISOString())).toBe(false);
    expect(accepted(new Date(FIRST_INSTANT).toISOString())).toBe(true);
    expect(accepted(new Date(FIRST_INSTANT - 1).toISOString())).toBe(false);
  });
});

/** Local calendar date of an instant in a zone, by Intl (independent of the SQL under test). */
function localKey(t: Date, timeZone: string, groupBy: "day" | "month"): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(t);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return groupBy === "day" ? `${get("year")}-${get("month")}-${get("day")}` : `${get("year")}-${get("month")}`;
}

/** The report computed naively from the call rows: what the rollup must reproduce exactly. */
function reference(
  rows: (typeof calls.$inferSelect)[],
  p: Principal,
  filters: UsageFilters,
  groupBy: UsageGroupBy,
  timeZone: string,
) {
  const out = new Map<
    string,
    {
      key: string | null;
      currency: string;
      calls: number;
      answeredCalls: number;
      unratedCalls: number;
      billedSeconds: number;
      price: bigint;
      buyCost: bigint;
      margin: bigint;
    }
  >();
  for (const r of rows) {
    if (p.billingGroupId !== null && r.billingGroupId !== p.billingGroupId) continue;
    if (filters.account && r.billingGroupId !== filters.account) continue;
    if (filters.startTimeGte && r.startTime < filters.startTimeGte) continue;
    if (filters.startTimeLte && r.startTime > filters.startTimeLte) continue;
    if (filters.direction && r.direction !== filters.direction) continue;
    if (filters.hangupCause && r.hangupCause?.toUpperCase() !== filters.hangupCause.toUpperCase()) continue;
    if (filters.to && !r.toNumber.includes(filters.to)) continue;
    if (filters.toPrefix && !r.toNumber.startsWith(filters.toPrefix)) continue;
    if (filters.fromPrefix && !r.fromNumber.startsWith(filters.fromPrefix)) continue;
    if (filters.uuid && r.uuid !== filters.uuid) continue;
    if (filters.id !== undefined && String(r.id) !== filters.id) continue;
    if (filters.billingGroupId && r.billingGroupId !== filters.billingGroupId) continue;
    if (filters.supplierId && r.supplierId !== filters.supplierId) continue;
    const key =
      groupBy === "day" || groupBy === "month"
        ? localKey(r.startTime, timeZone, groupBy)
        : groupBy === "destination"
          ? r.matchedPrefix
          : groupBy === "direction"
            ? r.direction
            : groupBy === "hangupCause"
              ? (r.hangupCause?.toUpperCase() ?? null)
              : groupBy === "account"
                ? r.billingGroupId
                : r.supplierId;
    const id = `${key}|${r.currency}`;
    const acc = out.get(id) ?? {
      key,
      currency: r.currency,
      calls: 0,
      answeredCalls: 0,
      unratedCalls: 0,
      billedSeconds: 0,
      price: 0n,
      buyCost: 0n,
      margin: 0n,
    };
    acc.calls += 1;
    acc.answeredCalls += r.answerTime ? 1 : 0;
    acc.unratedCalls += r.rated ? 0 : 1;
    acc.billedSeconds += r.billDuration;
    acc.price += r.priceMicros;
    if (r.buyCostMicros !== null) {
      acc.buyCost += r.buyCostMicros;
      acc.margin += r.priceMicros - r.buyCostMicros;
    }
    out.set(id, acc);
  }
  return [...out.values()];
}

/** Report rows as comparable text (money as exact decimal text), sorted. */
function normalise(rows: UsageReport["rows"]) {
  return rows
    .map((r) =>
      JSON.stringify([
        r.key,
        r.currency,
        r.calls,
        r.answeredCalls,
        r.unratedCalls,
        r.billedSeconds,
        r.price,
        "buyCost" in r ? r.buyCost : null,
        "margin" in r ? r.margin : null,
      ]),
    )
    .sort();
}
function normaliseReference(rows: ReturnType<typeof reference>) {
  return rows
    .map((r) =>
      JSON.stringify([
        r.key,
        r.currency,
        r.calls,
        r.answeredCalls,
        r.unratedCalls,
        r.billedSeconds,
        Number(formatMicros(r.price)),
        Number(formatMicros(r.buyCost)),
        Number(formatMicros(r.margin)),
      ]),
    )
    .sort();
}

describeOnEngines("usage rollup and summarizeUsage", (handle) => {
  let usd: string;
  let eur: string;
  let all: (typeof calls.$inferSelect)[];

  beforeAll(async () => {
    usd = (await createBillingGroup(handle().db, { name: "Dollar group", currency: "USD" })).id;
    eur = (await createBillingGroup(handle().db, { name: "Euro group", currency: "EUR" })).id;
    await handle().db.execute(
      sql`INSERT INTO suppliers (id, name) VALUES ('sup_a', 'Carrier A'), ('sup_b', 'Carrier B')`,
    );
    const row = (prefix: string, description: string) => ({
      prefix,
      rate: "0.000001",
      increment: { min: 1, interval: 1 },
      description,
    });
    await importSellRates(handle().db, usd, [row("44", "United Kingdom"), row("4420", "London")]);
    await importSellRates(handle().db, eur, [row("44", "Royaume-Uni")]);
    // Calls every 7m13.457s across DST changes (US 2026-03-08, EU 2026-03-29) and a month end, in several
    // INSERT statements (each fires the statement trigger once).
    const start = Date.parse("2026-03-07T00:00:00Z");
    const rows: CallInsert[] = [];
    const prefixes = ["44", "4420", null, "33"];
    for (let i = 0; i < 6000; i++) {
      const t = new Date(start + i * 433_457);
      const prefix = prefixes[i % 4];
      const answered = i % 5 !== 0;
      const bill = answered ? 6 * (i % 50) : 0;
      const supplier = i % 3 === 0 ? null : i % 3 === 1 ? "sup_a" : "sup_b";
      rows.push({
        uuid: `u-${i}`,
        billingGroupId: i % 7 === 0 ? eur : usd,
        direction: i % 2 ? "outbound" : "inbound",
        fromNumber: "1555",
        toNumber: `44${String(i * 7919).padStart(9, "0")}`,
        startTime: t,
        answerTime: answered ? new Date(t.getTime() + 2000) : null,
        endTime: new Date(t.getTime() + 2000 + bill * 1000),
        duration: 2 + bill,
        billDuration: bill,
        hangupCause: i % 11 === 0 ? null : i % 3 === 0 ? "user_busy" : "NORMAL_CLEARING",
        currency: i % 7 === 0 ? "EUR" : "USD",
        rated: prefix !== null,
        matchedPrefix: prefix,
        priceMicros: prefix === null ? 0n : BigInt(bill) * 1_234_567n + BigInt(i % 3),
        supplierId: supplier,
        buyCostMicros: supplier === null || prefix === null ? null : BigInt(bill) * 987_653n + 1n,
      });
    }
    for (let i = 0; i < rows.length; i += 1000)
      await handle()
        .db.insert(calls)
        .values(rows.slice(i, i + 1000));
    await claimCallUuids(handle().db);
    // Re-rating: an UPDATE of unrated calls moves them between rollup rows (old key out, new key in).
    await handle().db
      .execute(sql`UPDATE calls SET rated = true, matched_prefix = '44', price_micros = bill_duration * 1000001
      WHERE NOT rated AND uuid IN (SELECT 'u-' || g FROM generate_series(0, 3000) g)`);
    all = await handle().db.select().from(calls);
  }, 120_000);

  it("keeps the three rollups equal to the calls, through inserts and a re-rating update", async () => {
    const [fromCalls] = await queryRows<Record<string, string>>(
      handle().db,
      sql`SELECT count(*)::text AS n, count(answer_time)::text AS a, count(*) FILTER (WHERE NOT rated)::text AS u,
        sum(bill_duration)::text AS b, sum(price_micros)::text AS p, coalesce(sum(buy_cost_micros), 0)::text AS c,
        coalesce(sum(price_micros - buy_cost_micros), 0)::text AS m FROM calls`,
    );
    expect(Number(fromCalls.u)).toBeGreaterThan(0);
    for (const table of ["usage_hourly", "usage_quarter", "usage_daily"]) {
      const [fromRollup] = await queryRows<Record<string, string>>(
        handle().db,
        sql`SELECT sum(calls)::text AS n, sum(answered_calls)::text AS a, sum(unrated_calls)::text AS u, sum(billed_seconds)::text AS b,
          sum(price_micros)::text AS p, sum(buy_cost_micros)::text AS c, sum(margin_micros)::text AS m FROM ${sql.raw(table)}`,
      );
      expect(fromRollup, table).toEqual(fromCalls);
    }
  });

  const cases: [string, UsageGroupBy, string, UsageFilters][] = [
    ["day, UTC, no range", "day", "UTC", {}],
    [
      "day, New York across the DST change, ragged bounds",
      "day",
      "America/New_York",
      { startTimeGte: new Date("2026-03-07T05:17:03.5Z"), startTimeLte: new Date("2026-03-10T04:59:59.999Z") },
    ],
    [
      "day, London across the DST change",
      "day",
      "Europe/London",
      { startTimeGte: new Date("2026-03-28T00:00:00Z"), startTimeLte: new Date("2026-03-31T00:00:00Z") },
    ],
    ["day, Kolkata (+05:30)", "day", "Asia/Kolkata", { startTimeGte: new Date("2026-03-08T03:00:00Z") }],
    [
      "day, Kathmandu (+05:45), direction",
      "day",
      "Asia/Kathmandu",
      { direction: "outbound", startTimeLte: new Date("2026-03-20T13:37:00Z") },
    ],
    ["month, Adelaide", "month", "Australia/Adelaide", { hangupCause: "user_BUSY" }],
    ["destination", "destination", "UTC", { startTimeGte: new Date("2026-03-09T10:10:10Z") }],
    [
      "destination, whole UTC days and direction",
      "destination",
      "UTC",
      {
        startTimeGte: new Date("2026-03-09T00:00:00Z"),
        startTimeLte: new Date("2026-03-20T23:59:59.999Z"),
        direction: "inbound",
      },
    ],
    ["destination with a hangupCause filter (calls only)", "destination", "UTC", { hangupCause: "normal_clearing" }],
    [
      "supplier inside one day",
      "supplier",
      "UTC",
      { startTimeGte: new Date("2026-03-09T01:00:00Z"), startTimeLte: new Date("2026-03-09T22:00:00Z") },
    ],
    [
      "direction within one hour",
      "direction",
      "UTC",
      { startTimeGte: new Date("2026-03-09T10:10:10Z"), startTimeLte: new Date("2026-03-09T10:50:00Z") },
    ],
    ["hangupCause", "hangupCause", "UTC", {}],
    ["account", "account", "UTC", { startTimeLte: new Date("2026-03-25T00:00:00.001Z") }],
    ["supplier", "supplier", "UTC", { direction: "inbound" }],
    ["day with a `to` filter (calls only)", "day", "Europe/London", { to: "79" }],
    ["destination with toPrefix (calls only)", "destination", "UTC", { toPrefix: "44000" }],
    ["hangupCause with a uuid (calls only)", "hangupCause", "UTC", { uuid: "u-4200" }],
    ["direction with from and an id (calls only)", "direction", "UTC", { fromPrefix: "155", id: "42" }],
    ["destination of one supplier (calls only)", "destination", "UTC", { supplierId: "sup_a" }],
    ["day of one supplier, New York (calls only)", "day", "America/New_York", { supplierId: "sup_b" }],
  ];

  it.each(cases)("equals the sums over the calls exactly: %s", async (_name, groupBy, timeZone, filters) => {
    // Every group, and each one named (the operator's buy cost and margin are the platform's view only).
    for (const account of [undefined, usd, eur]) {
      const p = principal(null, COST);
      const named = account === undefined ? filters : { ...filters, account };
      const report = await summarizeUsage(handle().db, p, named, { groupBy, timeZone });
      const expected = normaliseReference(reference(all, p, named, groupBy, timeZone));
      if (account === undefined) expect(expected.length).toBeGreaterThan(0);
      expect(normalise(report.rows)).toEqual(expected);
    }
  });

  it("labels destinations from the group's card, accounts and suppliers by name", async () => {
    const dest = await summarizeUsage(handle().db, principal(usd), {}, { groupBy: "destination" });
    expect(dest.rows.map((r) => [r.key, r.label])).toEqual([
      ["33", null],
      ["44", "United Kingdom"],
      ["4420", "London"],
      [null, null],
    ]);
    const acc = await summarizeUsage(handle().db, principal(null), {}, { groupBy: "account" });
    expect(acc.rows.map((r) => r.label).sort()).toEqual(["Dollar group", "Euro group"]);
    const sup = await summarizeUsage(handle().db, principal(null, COST), { account: usd }, { groupBy: "supplier" });
    expect(sup.rows.map((r) => r.label)).toEqual(["Carrier A", "Carrier B", null]);
  });

  it("never adds currencies: one total per currency, each the sum of its rows", async () => {
    const report = await summarizeUsage(handle().db, principal(null, COST), {}, { groupBy: "direction" });
    expect(report.totals.map((t) => t.currency)).toEqual(["EUR", "USD"]);
    for (const t of report.totals) {
      const rows = report.rows.filter((r) => r.currency === t.currency);
      expect(t.calls).toBe(rows.reduce((s, r) => s + r.calls, 0));
    }
  });

  it("omits buyCost and margin (absent, not null) but for the platform's calls:read_cost; supplier grouping needs it", async () => {
    // A bound key's cost view (a reseller's) has no operator's cost in reports (docs/contract.md §21).
    for (const p of [principal(null), principal(usd, COST)]) {
      const report = await summarizeUsage(handle().db, p, {}, { groupBy: "day" });
      expect(report.rows.length).toBeGreaterThan(0);
      for (const r of [...report.rows, ...report.totals]) {
        expect("buyCost" in r).toBe(false);
        expect("margin" in r).toBe(false);
      }
    }
    for (const p of [principal(usd), principal(usd, COST)])
      await expect(summarizeUsage(handle().db, p, {}, { groupBy: "supplier" })).rejects.toMatchObject({
        code: "insufficient_scope",
      });
    await expect(
      summarizeUsage(handle().db, principal(usd), { supplierId: "sup_a" }, { groupBy: "day" }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
  });

  it("limits a bound key to its group: another group's account gives an empty report, as in /v1/calls", async () => {
    for (const filters of [{ account: eur }, { billingGroupId: eur }]) {
      const other = await summarizeUsage(handle().db, principal(usd, COST), filters, { groupBy: "day" });
      expect(other).toMatchObject({ rows: [], totals: [] });
    }
    expect(
      (await summarizeUsage(handle().db, principal(null), { account: "bg_nope" }, { groupBy: "day" })).rows,
    ).toEqual([]);
    const own = await summarizeUsage(handle().db, principal(eur), {}, { groupBy: "account" });
    expect(own.rows.map((r) => r.key)).toEqual([eur]);
  });

  it("reads a quarter hour that a local midnight still cuts from calls (Monrovia was UTC-0:44:30 until 1972)", async () => {
    const g = (await createBillingGroup(handle().db, { name: "Monrovia", currency: "USD" })).id;
    // Local midnight of 1971-06-02 is 00:44:30 UTC: inside the quarter 00:30-00:45.
    const starts = [
      "1971-06-02T00:31:00Z",
      "1971-06-02T00:44:29.999Z",
      "1971-06-02T00:44:30Z",
      "1971-06-02T00:50:00Z",
      "1971-06-01T12:00:00Z",
    ];
    await handle()
      .db.insert(calls)
      .values(
        starts.map((s, i) => ({
          ...withoutId(all[1]),
          billingGroupId: g,
          uuid: `monrovia-${i}`,
          startTime: new Date(s),
          endTime: new Date(Date.parse(s) + 1000),
        })),
      );
    const rows = (await handle().db.select().from(calls)).filter((r) => r.billingGroupId === g);
    const report = await summarizeUsage(
      handle().db,
      principal(null, COST),
      { account: g },
      { groupBy: "day", timeZone: "Africa/Monrovia" },
    );
    expect(report.rows.map((r) => [r.key, r.calls])).toEqual([
      ["1971-06-01", 3],
      ["1971-06-02", 2],
    ]);
    expect(normalise(report.rows)).toEqual(
      normaliseReference(reference(rows, principal(null, COST), { account: g }, "day", "Africa/Monrovia")),
    );
  });
});

// The `uuid` filter (a slow-path filter: read from calls) since calls is partitioned by month: the call is found in
// call_uuids and read by calls' primary key in its own partition (see lib/calls/list-calls-uuid.test.ts), not by
// scanning every partition. The report's statement is recorded (recordingDb) and run again under EXPLAIN ANALYZE to
// see which partitions it read.
describeOnEngines("summarizeUsage with a uuid filter", (handle, engine) => {
  let a: string;
  let b: string;
  let partitions: string[] = [];
  let recorded: Awaited<ReturnType<typeof recordingDb>>;

  beforeAll(async () => {
    const db = handle().db;
    a = (await createBillingGroup(db, { name: "A", currency: "USD" })).id;
    b = (await createBillingGroup(db, { name: "B", currency: "USD" })).id;
    // 2019-07 has no partition: calls_default.
    await insertUuidLookupCalls(db, { a, b }, [
      { uuid: "m-old", group: "a", start: "2019-07-14T08:00:00Z", priceMicros: 7 },
      { uuid: "shared", group: "a", start: "2025-03-10T12:00:00Z", priceMicros: 11 },
      { uuid: "shared", group: "b", start: "2025-01-20T06:30:00Z", priceMicros: 13 },
    ]);
    partitions = await callPartitionNames(db);
    recorded = await recordingDb(handle(), engine);
  }, 120_000);

  /** The report, and the partitions of calls its statement read. */
  async function report(p: Principal, filters: UsageFilters, groupBy: UsageGroupBy) {
    recorded.log.length = 0;
    const result = await summarizeUsage(recorded.db, p, filters, { groupBy });
    const statements = recorded.log.filter((s) => /\bfrom calls c\b/i.test(s.query));
    let read: string[] = [];
    if (statements.length > 0) {
      expect(statements).toHaveLength(1);
      const client = (handle().db as unknown as { $client: Parameters<typeof explainAnalyzeText>[0] }).$client;
      read = partitionsRead(await explainAnalyzeText(client, statements[0].query, statements[0].params), partitions);
    }
    return { rows: result.rows.map((r) => [r.key, r.calls, r.price]), read };
  }

  it("counts the call whatever month it started in, reading only its partition", async () => {
    for (const p of [principal(a), principal(null)]) {
      expect(await report(p, { uuid: "m-old" }, "month")).toEqual({
        rows: [["2019-07", 1, 0.000007]],
        read: ["calls_default"],
      });
      expect(await report(p, { uuid: "shared", account: a }, "month")).toEqual({
        rows: [["2025-03", 1, 0.000011]],
        read: ["calls_p202503"],
      });
    }
  });

  it("a bound key asking for another group's uuid gets an empty report, and reads no partition", async () => {
    expect(await report(principal(b), { uuid: "m-old" }, "account")).toEqual({ rows: [], read: [] });
    expect(await report(principal(b), { uuid: "bulk-2" }, "day")).toEqual({ rows: [], read: [] });
  });

  it("a uuid two groups hold: a platform key counts both calls, each bound key its own", async () => {
    const both = await report(principal(null), { uuid: "shared" }, "account");
    expect(both.read).toEqual(["calls_p202501", "calls_p202503"]);
    expect(both.rows).toEqual(
      [
        [a, 1, 0.000011],
        [b, 1, 0.000013],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    expect(await report(principal(b), { uuid: "shared" }, "month")).toEqual({
      rows: [["2025-01", 1, 0.000013]],
      read: ["calls_p202501"],
    });
  });
});
