import { describe, expect, it } from "vitest";
import { formatTaxRatePercent, parseTaxRatePercent, taxMicros } from "./tax";

describe("tax", () => {
  it("is rounded once, half-up (away from zero), to the currency's decimals", () => {
    // 20 % of 0.012345 = 0.002469 -> 0.00 EUR; of 0.025 -> 0.005 -> 0.01 (half-up); JPY has no decimals.
    expect(taxMicros(12_345n, 200_000, "EUR")).toBe(0n);
    expect(taxMicros(25_000n, 200_000, "EUR")).toBe(10_000n);
    expect(taxMicros(-25_000n, 200_000, "EUR")).toBe(-10_000n);
    expect(taxMicros(24_999n, 200_000, "EUR")).toBe(0n);
    expect(taxMicros(2_500_000n, 200_000, "JPY")).toBe(1_000_000n);
    expect(taxMicros(2_499_999n, 200_000, "JPY")).toBe(0n);
  });

  it("is exact for large amounts and fine rates", () => {
    // 8.875 % of 123 456 789.123456 = 10 956 790.034706... -> 10 956 790.03 USD; BHD keeps 3 decimals.
    expect(taxMicros(123_456_789_123_456n, 88_750, "USD")).toBe(10_956_790_030_000n);
    expect(taxMicros(123_456_789_123_456n, 88_750, "BHD")).toBe(10_956_790_035_000n);
    expect(taxMicros(1_000_000n, 0, "USD")).toBe(0n);
  });

  it("reads and writes rates as exact percentages", () => {
    expect(parseTaxRatePercent("20")).toBe(200_000);
    expect(parseTaxRatePercent("8.875")).toBe(88_750);
    expect(parseTaxRatePercent("0.0001")).toBe(1);
    expect(parseTaxRatePercent("100")).toBe(1_000_000);
    expect(() => parseTaxRatePercent("100.01")).toThrow(/more than 100/);
    expect(() => parseTaxRatePercent("8.87501")).toThrow(/4 decimals/);
    expect(() => parseTaxRatePercent("-1")).toThrow();
    expect(formatTaxRatePercent(88_750)).toBe("8.875");
    expect(formatTaxRatePercent(200_000)).toBe("20");
    expect(formatTaxRatePercent(1)).toBe("0.0001");
  });
});
