import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answeredSeconds, billableSeconds, chargeMicros, elapsedSeconds, isoToEpochMicros, priceCall } from "./billing-math";

const inc = (min: number, interval: number) => ({ min, interval });

describe("billableSeconds", () => {
  // [increment, answered seconds, billable seconds]: CONTRACT section 1 examples and the boundaries around them.
  const golden: [string, number, number][] = [
    ["1/1", 0, 0],
    ["1/1", 1, 1],
    ["1/1", 37, 37],
    ["1/1", 60, 60],
    ["60/60", 0, 0],
    ["60/60", -5, 0],
    ["60/60", 1, 60],
    ["60/60", 59, 60],
    ["60/60", 60, 60],
    ["60/60", 61, 120],
    ["60/60", 120, 120],
    ["60/60", 121, 180],
    ["30/6", 0, 0],
    ["30/6", 1, 30],
    ["30/6", 30, 30],
    ["30/6", 31, 36],
    ["30/6", 36, 36],
    ["30/6", 37, 42],
    ["0/60", 1, 60],
    ["0/60", 60, 60],
    ["0/60", 61, 120],
    ["60/1", 61, 61],
  ];
  it.each(golden)("%s and %i s -> %i", (text, answered, expected) => {
    const [min, interval] = text.split("/").map(Number);
    expect(billableSeconds(answered, inc(min, interval))).toBe(expected);
  });

  it("refuses a zero interval and fractional seconds", () => {
    expect(() => billableSeconds(10, inc(1, 0))).toThrow(RangeError);
    expect(() => billableSeconds(1.5, inc(1, 1))).toThrow(RangeError);
  });

  const increments = fc.record({ min: fc.integer({ min: 0, max: 600 }), interval: fc.integer({ min: 1, max: 600 }) });

  it("never bills less than was answered", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 100_000 }), increments, (s, i) => billableSeconds(s, i) >= s));
  });

  it("bills the minimum or a whole number of intervals beyond it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), increments, (s, i) => {
        const b = billableSeconds(s, i);
        return b >= i.min && (b - i.min) % i.interval === 0 && b - s < Math.max(i.min, i.interval);
      }),
    );
  });
});

describe("chargeMicros", () => {
  it.each([
    // rate micros/min, seconds, expected micros
    [12_000n, 60, 12_000n], // 0.012/min for a minute
    [12_000n, 37, 7_400n], // 0.012 * 37 / 60 = 0.0074
    [1n, 30, 1n], // 0.5 micro rounds half up
    [1n, 29, 0n], // 0.483 rounds down
    [1n, 90, 2n], // 1.5 -> 2
    [7n, 1, 0n], // 0.1166 -> 0
    [100_000n, 1, 1_667n], // 1666.67 -> 1667
    [0n, 600, 0n],
    [123_456_789n, 0, 0n],
  ])("%i micros/min for %i s -> %i micros", (rate, seconds, expected) => {
    expect(chargeMicros(rate, seconds)).toBe(expected);
  });

  it("is round-half-up of the exact quotient", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 1_000_000 }), (rate, s) => {
        const exact = rate * BigInt(s); // price * 60
        const charged = chargeMicros(rate, s);
        // charged - 1/2 <= exact/60 < charged + 1/2, in integers times 120
        return charged * 120n - 60n <= exact * 2n && exact * 2n < charged * 120n + 60n;
      }),
    );
  });

  it("never decreases as the call gets longer", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 10n }),
        fc.record({ min: fc.integer({ min: 0, max: 120 }), interval: fc.integer({ min: 1, max: 120 }) }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        (rate, increment, s, extra) => priceCall(rate, increment, s).micros <= priceCall(rate, increment, s + extra).micros,
      ),
    );
  });
});

describe("answered and elapsed seconds", () => {
  it("rounds partial seconds up and keeps microseconds", () => {
    expect(answeredSeconds("2025-01-01T00:00:00Z", "2025-01-01T00:00:10Z")).toBe(10);
    expect(answeredSeconds("2025-01-01T00:00:00Z", "2025-01-01T00:00:10.001Z")).toBe(11);
    expect(answeredSeconds("2025-01-01T00:00:00.000000Z", "2025-01-01T00:00:10.000001Z")).toBe(11);
    expect(answeredSeconds("2025-01-01T00:00:00.999999Z", "2025-01-01T00:00:10.999999Z")).toBe(10);
  });

  it("is 0 for unanswered calls and never negative", () => {
    expect(answeredSeconds(null, "2025-01-01T00:00:10Z")).toBe(0);
    expect(elapsedSeconds("2025-01-01T00:00:10Z", "2025-01-01T00:00:09Z")).toBe(0);
  });

  it("honours zone offsets", () => {
    expect(isoToEpochMicros("2025-01-01T02:00:00.5+02:00")).toBe(Date.parse("2025-01-01T00:00:00Z") * 1000 + 500_000);
    expect(isoToEpochMicros("2025-01-01T02:00:00+0200")).toBe(Date.parse("2025-01-01T00:00:00Z") * 1000);
    expect(elapsedSeconds("2025-01-01T01:00:00+01:00", "2025-01-01T00:01:00Z")).toBe(60);
  });

  it("rejects text without a zone", () => {
    expect(() => isoToEpochMicros("2025-01-01T00:00:00")).toThrow(RangeError);
  });
});
