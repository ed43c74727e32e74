import { describe, expect, it } from "vitest";
import {
  asTierRevenue,
  groupByCurrency,
  groupDestinationsByName,
  parseReportFilters,
  reportCsv,
  reportFiltersToSearch,
  reportToUsageQuery,
} from "./report";

describe("usage report page", () => {
  it("reads its URL, dropping bad values", () => {
    expect(
      parseReportFilters(new URLSearchParams("groupBy=destination&from=2026-11-01&direction=sideways&account=bg_1")),
    ).toEqual({
      groupBy: "destination",
      from: "2026-11-01",
      account: "bg_1",
    });
    expect(parseReportFilters(new URLSearchParams("groupBy=planet"))).toEqual({ groupBy: "day" });
  });

  it("asks /v1/usage for whole days in the shown zone, bucketed in that zone", () => {
    const q = reportToUsageQuery({ groupBy: "day", from: "2026-11-01", until: "2026-11-02", account: "bg_1" }, "UTC");
    expect(Object.fromEntries(q)).toEqual({
      groupBy: "day",
      timeZone: "UTC",
      "startTime[gte]": "2026-11-01T00:00:00.000Z",
      "startTime[lte]": "2026-11-02T23:59:59.999Z",
      account: "bg_1",
    });
    // An account east of UTC: its days start the evening before in UTC; a +05:30 zone's at half past.
    const tokyo = reportToUsageQuery({ groupBy: "month", from: "2026-12-01", until: "2026-12-31" }, "Asia/Tokyo");
    expect(Object.fromEntries(tokyo)).toMatchObject({
      timeZone: "Asia/Tokyo",
      "startTime[gte]": "2026-11-30T15:00:00.000Z",
      "startTime[lte]": "2026-12-31T14:59:59.999Z",
    });
    const kolkata = reportToUsageQuery({ groupBy: "day", from: "2026-12-01" }, "Asia/Kolkata");
    expect(kolkata.get("startTime[gte]")).toBe("2026-11-30T18:30:00.000Z");
    expect(kolkata.has("startTime[lte]")).toBe(false);
  });

  it("writes CSV with exact amounts, cost columns only for cost sessions", () => {
    const rows = [
      {
        key: "44",
        label: "UK, London",
        currency: "USD",
        calls: 2,
        answeredCalls: 1,
        unratedCalls: 0,
        billedSeconds: 60,
        price: 0.012345,
        buyCost: 0.02,
        margin: -0.007655,
      },
    ];
    expect(reportCsv(rows, "destination", true)).toBe(
      'destination,label,currency,calls,answeredCalls,unratedCalls,billedSeconds,price,buyCost,margin\r\n44,"UK, London",USD,2,1,0,60,0.012345,0.02,-0.007655\r\n',
    );
    expect(reportCsv(rows, "destination", false)).not.toMatch(/buyCost|margin|0\.02/);
  });
});

describe("report CSV cells", () => {
  it("defuses formulas in labels", () => {
    const rows = [
      {
        key: "x",
        label: "=HYPERLINK(1)",
        currency: "USD",
        calls: 1,
        answeredCalls: 1,
        unratedCalls: 0,
        billedSeconds: 1,
        price: 0,
      },
    ];
    expect(reportCsv(rows, "hangupCause", false)).toContain(",'=HYPERLINK(1),");
  });
});

describe("report figures per currency and per destination name", () => {
  const row = (key: string | null, label: string | null, currency: string, price: number, extra = {}) => ({
    key,
    label,
    currency,
    calls: 2,
    answeredCalls: 1,
    unratedCalls: 0,
    billedSeconds: 60,
    price,
    ...extra,
  });

  it("keeps each currency apart, codes ascending, rows in their order", () => {
    const rows = [row("a", null, "USD", 1), row("b", null, "EUR", 2), row("c", null, "USD", 3)];
    expect(groupByCurrency(rows).map((g) => [g.currency, g.items.map((r) => r.key)])).toEqual([
      ["EUR", ["b"]],
      ["USD", ["a", "c"]],
    ]);
  });

  it("adds the prefixes of one named destination exactly, per currency, cost figures when present", () => {
    const rows = [
      row("63", "Philippines fixed", "USD", 0.1, { buyCost: 0.05, margin: 0.05 }),
      row("632", "Philippines fixed", "USD", 0.2, { buyCost: 0.3, margin: -0.1 }),
      row("6332", "Philippines fixed", "EUR", 0.7, { buyCost: 0.1, margin: 0.6 }),
      row("33", null, "USD", 1, { buyCost: 0, margin: 1 }),
      row(null, null, "USD", 0, { buyCost: 0, margin: 0 }),
    ];
    const groups = groupDestinationsByName(rows);
    const usd = groups.find((g) => g.name === "Philippines fixed" && g.currency === "USD")!;
    expect(usd).toMatchObject({ calls: 4, billedSeconds: 120, price: 0.3, buyCost: 0.35, margin: -0.05 });
    expect(usd.prefixes.map((p) => p.key)).toEqual(["63", "632"]);
    expect(groups.find((g) => g.currency === "EUR")).toMatchObject({ name: "Philippines fixed", price: 0.7 });
    expect(groups.map((g) => g.name)).toEqual([
      "Philippines fixed",
      "Philippines fixed",
      "33",
      "Unrated (no rate matched)",
    ]);
    expect("margin" in groupDestinationsByName([row("1", "x", "USD", 1)])[0]).toBe(false);
  });

  it("defaults to this month when the URL names no range, and keeps an explicitly open range open", () => {
    expect(parseReportFilters(new URLSearchParams(""), "2026-11-24")).toEqual({
      groupBy: "day",
      from: "2026-11-01",
      until: "2026-11-30",
    });
    expect(parseReportFilters(new URLSearchParams("from=&until="), "2026-11-24")).toEqual({ groupBy: "day" });
    expect(reportFiltersToSearch({ groupBy: "month" })).toBe("?groupBy=month&from=&until=");
  });
});

describe("a reseller's revenue on its report", () => {
  it("is what its children paid it (buy cost + margin, exact), not its customers' calls' price", () => {
    const row = { key: "bg_c", price: 3.000003, buyCost: 0.700001, margin: 1.300001 };
    expect(asTierRevenue(row)).toEqual({ ...row, price: 2.000002 });
    // Decimals a float sum would get wrong.
    expect(asTierRevenue({ price: 0, buyCost: 0.1, margin: 0.2 }).price).toBe(0.3);
    expect(asTierRevenue({ price: 1, buyCost: 0.000001, margin: -0.000002 }).price).toBe(-0.000001);
  });
  it("leaves figures without cost as they are", () => {
    const row = { price: 5 };
    expect(asTierRevenue(row)).toBe(row);
  });
});
