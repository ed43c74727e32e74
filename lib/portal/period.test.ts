import { describe, expect, it } from "vitest";
import { bucketCoverage, describePeriod, formatDayRange, lastDayOfMonth, monthOf, periodText } from "./period";

describe("period labels", () => {
  it("writes a range of days briefly, the year once when it is shared", () => {
    expect(formatDayRange("2026-08-01", "2026-11-24")).toBe("1 Aug – 24 Nov 2026");
    expect(formatDayRange("2026-11-01", "2026-11-24")).toBe("1 – 24 Nov 2026");
    expect(formatDayRange("2025-12-28", "2026-01-03")).toBe("28 Dec 2025 – 3 Jan 2026");
    expect(formatDayRange("2026-11-24", "2026-11-24")).toBe("24 Nov 2026");
  });

  it("names open ranges, and no range as all time", () => {
    expect(periodText({ from: "2026-08-01" })).toBe("Since 1 Aug 2026");
    expect(periodText({ until: "2026-11-24" })).toBe("Until 24 Nov 2026");
    expect(periodText({})).toBe("All time");
  });

  it("states the zone, and marks a period that runs to today (or has no end) as partial", () => {
    expect(describePeriod({ from: "2026-08-01", until: "2026-11-24" }, "Europe/Berlin", "2026-11-24")).toEqual({
      label: "1 Aug – 24 Nov 2026, Europe/Berlin",
      partial: "to date, 24 Nov 2026 not over",
    });
    expect(describePeriod({ from: "2026-08-01", until: "2026-08-31" }, "UTC", "2026-11-24").partial).toBeNull();
    expect(describePeriod({}, "UTC", "2026-11-24")).toEqual({
      label: "All time, UTC",
      partial: "to date, 24 Nov 2026 not over",
    });
    expect(describePeriod({ from: "2027-01-01" }, "UTC", "2026-11-24").partial).toBeNull();
  });

  it("knows month lengths, leap years included", () => {
    expect(lastDayOfMonth("2026-02")).toBe("2026-02-28");
    expect(lastDayOfMonth("2028-02")).toBe("2028-02-29");
    expect(monthOf("2026-11-24")).toEqual({ from: "2026-11-01", until: "2026-11-30" });
  });
});

describe("bucketCoverage", () => {
  const today = "2026-11-24";
  it("marks the first month a range starts inside, and the last it ends inside, as partial", () => {
    const range = { from: "2026-08-15", until: "2026-10-20" };
    expect(bucketCoverage("2026-08", "month", range, today)).toEqual({ partial: true, note: "from 15 Aug 2026" });
    expect(bucketCoverage("2026-09", "month", range, today)).toEqual({ partial: false, note: null });
    expect(bucketCoverage("2026-10", "month", range, today)).toEqual({ partial: true, note: "until 20 Oct 2026" });
  });

  it("marks the month and the day that today is in as partial, to date", () => {
    expect(bucketCoverage("2026-11", "month", {}, today)).toEqual({ partial: true, note: "to date" });
    expect(bucketCoverage("2026-11-24", "day", {}, today)).toEqual({ partial: true, note: "to date" });
    expect(bucketCoverage("2026-11-23", "day", { from: "2026-11-01" }, today)).toEqual({ partial: false, note: null });
  });
});
