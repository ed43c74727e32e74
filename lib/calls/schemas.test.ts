import { describe, expect, it } from "vitest";
import { listCallsQuerySchema } from "./schemas";

const issues = (query: Record<string, string>) => {
  const parsed = listCallsQuerySchema.safeParse(query);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
};

describe("date filters of GET /v1/calls and its CSV export", () => {
  it.each([
    "0000-01-01",
    "0000-06-01T00:00:00Z",
    "0001-01-01T00:30:00+01:00", // year 0 in UTC
    "9999-12-31T23:00:00-05:00", // year 10000 in UTC
    // The last day of 9999 after its first instant: the usage report rounds it up to a whole day, in year 10000.
    "9999-12-31T23:00:01Z",
    "9999-12-31T00:00:00.001Z",
    "9999-12-31T23:59:59.999Z",
  ])("refuses %s, which PostgreSQL cannot hold, as an invalid parameter", (value) => {
    expect(issues({ "startTime[gte]": value })).toEqual(["startTime[gte]"]);
    expect(issues({ "startTime[lte]": value })).toEqual(["startTime[lte]"]);
  });

  it.each(["0001-01-01", "1969-07-20", "2026-01-31T12:00:00Z", "9999-12-31", "9999-12-31T00:00:00Z"])(
    "accepts %s",
    (value) => {
      expect(issues({ "startTime[gte]": value })).toEqual([]);
    },
  );
});

describe("a malformed date filter", () => {
  it("is one issue, naming the format", () => {
    const parsed = listCallsQuerySchema.safeParse({ "startTime[gte]": "yesterday" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      "must be an ISO 8601 date (2026-01-31) or timestamp with offset (2026-01-31T12:00:00Z)",
    ]);
  });
});
