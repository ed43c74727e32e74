import { describe, expect, it } from "vitest";
import { addDays, dayInZone, zonedDayStart, zonedDays } from "./zoned-time";

describe("a zone's days", () => {
  it("says which day an instant is in a zone east or west of UTC, :30 and :45 zones included", () => {
    const at = new Date("2026-11-30T23:30:00Z");
    expect(dayInZone(at, "UTC")).toBe("2026-11-30");
    expect(dayInZone(at, "Asia/Tokyo")).toBe("2026-12-01");
    expect(dayInZone(new Date("2026-11-30T18:29:59.999Z"), "Asia/Kolkata")).toBe("2026-11-30");
    expect(dayInZone(new Date("2026-11-30T18:30:00Z"), "Asia/Kolkata")).toBe("2026-12-01");
    expect(dayInZone(new Date("2026-11-30T18:15:00Z"), "Asia/Kathmandu")).toBe("2026-12-01");
    expect(dayInZone(at, "America/New_York")).toBe("2026-11-30");
  });

  it("starts a day at its local midnight, or its first instant when DST skips midnight", () => {
    expect(zonedDayStart("2026-12-01", "Asia/Kolkata").toISOString()).toBe("2026-11-30T18:30:00.000Z");
    expect(zonedDayStart("2026-03-08", "America/New_York").toISOString()).toBe("2026-03-08T05:00:00.000Z");
    // Chile moves its clocks from 00:00 to 01:00 on 6 Sep 2026: that day starts at 01:00 (-03).
    expect(zonedDayStart("2026-09-06", "America/Santiago").toISOString()).toBe("2026-09-06T04:00:00.000Z");
    expect(zonedDays("2026-12-01", "2026-12-31", "Asia/Tokyo")).toEqual({
      gte: new Date("2026-11-30T15:00:00.000Z"),
      lte: new Date("2026-12-31T14:59:59.999Z"),
    });
  });

  it("counts calendar days across months and years", () => {
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
  });
});
