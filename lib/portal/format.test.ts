import { describe, expect, it } from "vitest";
import { formatDateTime, formatDateTimeCompact, formatDuration, formatMoney, formatRate, toMicros } from "./format";

describe("portal formatting", () => {
  it("formats money exactly, beyond what a float would keep", () => {
    expect(formatMoney(toMicros("12345678901234.123456"), "USD", "en-US")).toBe("$12,345,678,901,234.123456");
    expect(formatMoney(toMicros(0.1) + toMicros(0.2), "USD", "en-US")).toBe("$0.30");
  });

  it("keeps up to 6 decimals of a call price and at least 2", () => {
    expect(formatMoney(toMicros(0.0123), "EUR", "en-US")).toBe("€0.0123");
    expect(formatMoney(toMicros(5), "EUR", "en-US")).toBe("€5.00");
    expect(formatMoney(toMicros(0.000001), "USD", "en-US")).toBe("$0.000001");
  });

  it("shows negative margins with a minus sign", () => {
    expect(formatMoney(toMicros(-0.0042), "USD", "en-US")).toBe("-$0.0042");
  });

  it("formats rates per minute", () => {
    expect(formatRate(toMicros("0.012"), "USD", "en-US")).toBe("$0.012/min");
  });

  it("formats durations", () => {
    expect(formatDuration(0)).toBe("0:00");
    expect(formatDuration(61)).toBe("1:01");
    expect(formatDuration(3725)).toBe("1:02:05");
  });

  it("renders instants in the requested time zone", () => {
    const iso = "2026-03-01T23:30:00.000Z";
    expect(formatDateTime(iso, { locale: "en-GB", timeZone: "UTC" })).toContain("23:30:00");
    expect(formatDateTime(iso, { locale: "en-GB", timeZone: "Asia/Tokyo" })).toContain("08:30:00");
  });

  it("renders compact timestamps in the requested zone, across a date line", () => {
    expect(formatDateTimeCompact("2026-03-01T23:30:05.000Z", { timeZone: "Asia/Tokyo" })).toBe("2026-03-02 08:30:05");
    expect(formatDateTimeCompact("2026-03-01T00:00:00.000Z", { timeZone: "America/New_York" })).toBe("2026-02-28 19:00:00");
  });
});
