import { describe, expect, it } from "vitest";
import { parseReportFilters, reportCsv, reportToUsageQuery } from "./report";

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
