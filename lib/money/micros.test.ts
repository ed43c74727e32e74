import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { divRoundHalfUp, formatMicros, microsToNumber, parseMicros } from "./micros";

describe("micros", () => {
  it("parses decimals exactly", () => {
    expect(parseMicros("0.0120")).toBe(12_000n);
    expect(parseMicros("-3.5")).toBe(-3_500_000n);
    expect(parseMicros("100")).toBe(100_000_000n);
    expect(parseMicros("0.000001")).toBe(1n);
    expect(() => parseMicros("0.0000001")).toThrow(/6 decimals/);
    expect(() => parseMicros("1e3")).toThrow();
    expect(() => parseMicros("")).toThrow();
  });

  it("formats without losing a micro", () => {
    expect(formatMicros(1_234_500n)).toBe("1.2345");
    expect(formatMicros(-1n)).toBe("-0.000001");
    expect(formatMicros(5_000_000n, 2)).toBe("5.00");
  });

  it("round-trips through text and JSON numbers", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), (m) => {
        expect(parseMicros(formatMicros(m))).toBe(m);
        expect(parseMicros(JSON.parse(JSON.stringify(microsToNumber(m))))).toBe(m);
      }),
    );
  });

  it("rounds half up", () => {
    expect(divRoundHalfUp(5n, 10n)).toBe(1n);
    expect(divRoundHalfUp(4n, 10n)).toBe(0n);
    expect(divRoundHalfUp(15n, 10n)).toBe(2n);
    expect(divRoundHalfUp(-15n, 10n)).toBe(-2n);
  });
});
