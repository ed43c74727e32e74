import { describe, expect, it } from "vitest";
import { minorUnitMicros, roundToMinorUnit } from "./currency-decimals";

describe("the minor unit of a currency (ISO 4217 exponent)", () => {
  it("is 0.01 for USD and EUR, 1 for JPY, 0.001 for KWD", () => {
    expect([minorUnitMicros("USD"), minorUnitMicros("EUR"), minorUnitMicros("JPY"), minorUnitMicros("KWD")]).toEqual([
      10_000n,
      10_000n,
      1_000_000n,
      1_000n,
    ]);
  });

  it("rounds half-up, away from zero", () => {
    expect(roundToMinorUnit(319_561_000n, "USD")).toBe(319_560_000n);
    expect(roundToMinorUnit(13_896_761n, "USD")).toBe(13_900_000n);
    expect(roundToMinorUnit(119_800_095n, "EUR")).toBe(119_800_000n);
    expect(roundToMinorUnit(5_000n, "USD")).toBe(10_000n);
    expect(roundToMinorUnit(-5_000n, "USD")).toBe(-10_000n);
    expect(roundToMinorUnit(-4_999n, "USD")).toBe(0n);
    expect(roundToMinorUnit(1_499_999n, "JPY")).toBe(1_000_000n);
    expect(roundToMinorUnit(1_234_500n, "KWD")).toBe(1_235_000n);
  });
});
