import { describe, expect, it } from "vitest";
import {
  callFiltersToApiQuery,
  callFiltersToSearch,
  hasAnyFilter,
  parseCallFilters,
  quickRange,
  rangeProblem,
} from "./call-filters";

describe("call log filters", () => {
  it("round-trips through the portal URL", () => {
    const filters = {
      from: "2026-11-01",
      until: "2026-11-21",
      direction: "outbound" as const,
      destination: "4420",
      hangupCause: "NORMAL_CLEARING",
    };
    const search = callFiltersToSearch(filters);
    expect(search).toBe("?from=2026-11-01&until=2026-11-21&direction=outbound&destination=4420&cause=NORMAL_CLEARING");
    expect(parseCallFilters(new URLSearchParams(search))).toEqual(filters);
  });

  it("drops only the invalid values of a hand-edited URL", () => {
    const f = parseCallFilters(
      new URLSearchParams("from=yesterday&direction=sideways&destination=%2B4420&cause=x;drop"),
    );
    expect(f).toEqual({ destination: "4420" });
  });

  it("keeps unrelated parameters and removes cleared filters", () => {
    const search = callFiltersToSearch(
      { direction: "inbound" },
      new URLSearchParams("call=42&direction=outbound&cause=USER_BUSY"),
    );
    expect(search).toBe("?call=42&direction=inbound");
  });

  it("maps whole local days to an inclusive instant range of the API", () => {
    const q = callFiltersToApiQuery({ from: "2026-06-10", until: "2026-06-10", destination: "44" });
    const gte = new Date(q.get("startTime[gte]")!);
    const lte = new Date(q.get("startTime[lte]")!);
    expect(gte.getHours()).toBe(0);
    expect(gte.getDate()).toBe(10);
    expect(lte.getTime() - gte.getTime()).toBe(24 * 3600 * 1000 - 1);
    expect(q.get("to")).toBe("44");
  });

  it("computes quick ranges ending today", () => {
    expect(quickRange(1, new Date(2026, 10, 21, 15))).toEqual({ from: "2026-11-21", until: "2026-11-21" });
    expect(quickRange(7, new Date(2026, 10, 21, 15))).toEqual({ from: "2026-11-15", until: "2026-11-21" });
    expect(quickRange(30, new Date(2026, 2, 5, 1))).toEqual({ from: "2026-02-04", until: "2026-03-05" });
  });

  it("maps whole UTC days when the portal shows UTC", () => {
    const q = callFiltersToApiQuery({ from: "2026-06-10", until: "2026-06-11" }, "utc");
    expect(q.get("startTime[gte]")).toBe("2026-06-10T00:00:00.000Z");
    expect(q.get("startTime[lte]")).toBe("2026-06-11T23:59:59.999Z");
    expect(quickRange(7, new Date(Date.UTC(2026, 10, 21, 23, 30)), "utc")).toEqual({
      from: "2026-11-15",
      until: "2026-11-21",
    });
  });

  it("sends search, account and destination prefix as the API's filters", () => {
    const f = parseCallFilters(new URLSearchParams("q=%2B1555&account=bg_x&destination=44&match=prefix"));
    expect(f).toEqual({ search: "+1555", account: "bg_x", destination: "44", destinationMatch: "prefix" });
    expect(Object.fromEntries(callFiltersToApiQuery(f))).toEqual({
      from: "+1555",
      billingGroupId: "bg_x",
      toPrefix: "44",
    });
    const byId = parseCallFilters(new URLSearchParams("q=42&by=id"));
    expect(Object.fromEntries(callFiltersToApiQuery(byId))).toEqual({ id: "42" });
    expect(Object.fromEntries(callFiltersToApiQuery(parseCallFilters(new URLSearchParams("q=ab-12&by=uuid"))))).toEqual(
      { uuid: "ab-12" },
    );
  });

  it("drops a search that cannot be what it is searched as", () => {
    expect(parseCallFilters(new URLSearchParams("q=abc&by=id"))).toEqual({});
    expect(parseCallFilters(new URLSearchParams("q=abc"))).toEqual({});
    expect(hasAnyFilter(parseCallFilters(new URLSearchParams("match=prefix")))).toBe(false);
  });
});

describe("supplier filter and date ranges", () => {
  it("carries the supplier to the API as supplierId", () => {
    const f = parseCallFilters(new URLSearchParams("supplier=sup_1&account=bg_2"));
    expect(f).toEqual({ supplier: "sup_1", account: "bg_2" });
    expect(Object.fromEntries(callFiltersToApiQuery(f))).toEqual({ supplierId: "sup_1", billingGroupId: "bg_2" });
  });

  it("says when From is after Until, and only then", () => {
    expect(rangeProblem({ from: "2026-11-02", until: "2026-11-01" })).toMatch(/From is after Until/);
    expect(rangeProblem({ from: "2026-11-01", until: "2026-11-01" })).toBeNull();
    expect(rangeProblem({ from: "2026-11-02" })).toBeNull();
  });
});
