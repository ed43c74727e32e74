import { describe, expect, it } from "vitest";
import { callFiltersToApiQuery, parseCallFilters } from "./call-filters";
import { callPagesKey, firstCallPagePath, latestCallsPath, serverCallLogQuery } from "./query-keys";

const filtersOf = (search: string) => parseCallFilters(new URLSearchParams(search));

describe("serverCallLogQuery", () => {
  it("is the browser's own /v1/calls query for filters without days, whatever the zone", () => {
    const filters = filtersOf("direction=inbound&destination=%2B4420&match=prefix&q=123&account=bg_1");
    const query = serverCallLogQuery(filters);
    expect(query).toBe("direction=inbound&toPrefix=4420&billingGroupId=bg_1&from=123");
    // The browser asks in its own zone after hydration: the same key, so the server's page is used.
    expect(query).toBe(callFiltersToApiQuery(filters, "local").toString());
    expect(callPagesKey(query!)).toEqual(["calls", query]);
    expect(firstCallPagePath(query!)).toBe(`/v1/calls?${query}&pageSize=50`);
    expect(firstCallPagePath(serverCallLogQuery(filtersOf(""))!)).toBe("/v1/calls?pageSize=50");
  });

  it("reads nothing ahead for days (the viewer's zone decides them) or a range the API would refuse", () => {
    expect(serverCallLogQuery(filtersOf("from=2026-11-01"))).toBeNull();
    expect(serverCallLogQuery(filtersOf("until=2026-11-30&direction=inbound"))).toBeNull();
    expect(serverCallLogQuery(filtersOf("from=2026-11-30&until=2026-11-01"))).toBeNull();
  });

  it("drops a bad value as the browser does", () => {
    expect(serverCallLogQuery(filtersOf("direction=sideways&cause=NO_ANSWER"))).toBe("hangupCause=NO_ANSWER");
  });
});

describe("latestCallsPath", () => {
  it("names the chosen account of a platform session, encoded", () => {
    expect(latestCallsPath(undefined)).toBe("/v1/calls?pageSize=8");
    expect(latestCallsPath("bg_a b")).toBe("/v1/calls?pageSize=8&billingGroupId=bg_a%20b");
  });
});
