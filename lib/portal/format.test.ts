import { describe, expect, it } from "vitest";
import {
  amountColumn,
  formatAmount,
  formatColumnAmount,
  formatDateTime,
  formatDuration,
  formatMoney,
  formatPercent,
  formatPhoneNumber,
  formatPrice,
  formatRate,
  shortTimeZoneName,
  toMicros,
} from "./format";

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

  it("formats rates per minute with their 6 decimals", () => {
    expect(formatRate(toMicros("0.012"), "USD", "en-US")).toBe("$0.012000/min");
    expect(formatRate(toMicros("0.000001"), "EUR", "en-US")).toBe("€0.000001/min");
  });

  it("shows shares to a tenth of a percent, rounded half away from zero, none of nothing", () => {
    expect(formatPercent(1n, 8n, "en-US")).toBe("12.5%");
    expect(formatPercent(-1n, 8n, "en-US")).toBe("-12.5%");
    expect(formatPercent(1_234_567n, 10_000_000n, "en-US")).toBe("12.3%");
    expect(formatPercent(5n, 0n, "en-US")).toBeNull();
  });

  it("writes international numbers in E.164 with the +, and leaves other numbers as stored", () => {
    expect(formatPhoneNumber("442071234567")).toBe("+442071234567");
    expect(formatPhoneNumber("+639171234567")).toBe("+639171234567");
    expect(formatPhoneNumber("1001")).toBe("1001");
    expect(formatPhoneNumber("02071234567")).toBe("02071234567");
    expect(formatPhoneNumber("anonymous")).toBe("anonymous");
  });

  it("formats durations", () => {
    expect(formatDuration(0)).toBe("0:00");
    expect(formatDuration(61)).toBe("1:01");
    expect(formatDuration(3725)).toBe("1:02:05");
  });

  it("renders instants in one format, in the requested time zone, across a date line", () => {
    expect(formatDateTime("2026-03-01T23:30:05.000Z", { timeZone: "UTC" })).toBe("2026-03-01 23:30:05");
    expect(formatDateTime("2026-03-01T23:30:05.000Z", { timeZone: "Asia/Tokyo" })).toBe("2026-03-02 08:30:05");
    expect(formatDateTime("2026-03-01T00:00:00.000Z", { timeZone: "America/New_York" })).toBe("2026-02-28 19:00:00");
  });

  it("names zones briefly for headers", () => {
    expect(shortTimeZoneName("UTC")).toBe("UTC");
    expect(shortTimeZoneName("America/New_York", new Date("2026-01-15T12:00:00Z"))).toBe("EST");
  });

  it("formats balances in the currency's own minor units, rounding the exact decimal", () => {
    expect(formatAmount(toMicros("1234.505"), "USD", "en-US")).toBe("$1,234.51");
    expect(formatAmount(toMicros("1234.5"), "JPY", "en-US")).toBe("¥1,235");
    expect(formatAmount(toMicros("12.3456"), "BHD", "en-US")).toBe("BHD\u00a012.346");
    expect(formatAmount(toMicros("-0.004"), "USD", "en-US")).toBe("-$0.00");
  });

  it("formats per-call prices in the currency's decimals, more only where the exact amount has them", () => {
    expect(formatPrice(0n, "USD", "en-US")).toBe("$0.00");
    expect(formatPrice(toMicros("0.0074"), "USD", "en-US")).toBe("$0.0074");
    expect(formatPrice(toMicros("1.2"), "EUR", "en-US")).toBe("€1.20");
    expect(formatPrice(toMicros("-0.000001"), "USD", "en-US")).toBe("-$0.000001");
    expect(formatPrice(toMicros("5"), "JPY", "en-US")).toBe("¥5");
    expect(formatPrice(toMicros("0.5"), "BHD", "en-US")).toBe("BHD\u00a00.500");
  });
});

describe("a column of per-call amounts", () => {
  const usd = (value: number | null) => ({ value, currency: "USD" });

  it("gives every amount the decimals the most precise one needs, so the column lines up", () => {
    const column = amountColumn([usd(0.00145), usd(0.0199), usd(0), usd(null)]);
    expect(column).toEqual({ decimals: 5, byCode: false });
    expect([0.00145, 0.0199, 0].map((v) => formatColumnAmount(toMicros(v), "USD", column, "en-US"))).toEqual([
      "$0.00145",
      "$0.01990",
      "$0.00000",
    ]);
  });

  it("keeps at least the currency's decimals and at most 6", () => {
    expect(amountColumn([usd(1), usd(2.5)])).toEqual({ decimals: 2, byCode: false });
    expect(amountColumn([usd(0.000417)]).decimals).toBe(6);
    expect(amountColumn([{ value: 12, currency: "JPY" }]).decimals).toBe(0);
    expect(amountColumn([{ value: 0.5, currency: "BHD" }]).decimals).toBe(3);
  });

  it("names the currency by its code beside every amount when the rows span currencies", () => {
    const column = amountColumn([usd(0.0199), { value: 0.012, currency: "EUR" }]);
    expect(column).toEqual({ decimals: 4, byCode: true });
    expect(formatColumnAmount(toMicros(0.0199), "USD", column, "en-US")).toBe("USD\u00a00.0199");
    expect(formatColumnAmount(toMicros(-0.012), "EUR", column, "en-US")).toBe("-EUR\u00a00.0120");
  });

  it("does not count the currency of an amount not shown", () => {
    expect(amountColumn([usd(0.01), { value: null, currency: "EUR" }]).byCode).toBe(false);
  });
});
