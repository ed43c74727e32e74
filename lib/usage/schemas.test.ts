import { describe, expect, it } from "vitest";
import { usageQuerySchema } from "./schemas";

describe("usageQuerySchema", () => {
  const issues = (q: Record<string, string>) => {
    const r = usageQuerySchema.safeParse(q);
    return r.success ? [] : r.error.issues.map((i) => [i.path.join("."), i.message]);
  };

  it("defaults to groupBy=day in UTC", () => {
    expect(usageQuerySchema.parse({})).toMatchObject({ groupBy: "day", timeZone: "UTC" });
  });

  it("takes IANA zone names only (PostgreSQL reads POSIX offsets with the sign inverted)", () => {
    for (const tz of ["Asia/Kolkata", "America/New_York", "Europe/London", "UTC", "Etc/GMT+5"])
      expect(issues({ timeZone: tz })).toEqual([]);
    for (const tz of ["", "+05:30", "UTC+5", "GMT-3", "Mars/Olympus_Mons", "x".repeat(65)])
      expect(issues({ timeZone: tz })).toHaveLength(1);
  });

  it("reports each invalid calls filter once, and the calls schema's cross-field rule", () => {
    expect(issues({ to: "4".repeat(65) })).toEqual([["to", "must be at most 64 characters"]]);
    expect(issues({ "startTime[gte]": "yesterday" })).toHaveLength(1);
    expect(issues({ "startTime[gte]": "2026-02-01", "startTime[lte]": "2026-01-01" })).toEqual([
      ["startTime[gte]", "must not be after startTime[lte]"],
    ]);
  });
});
