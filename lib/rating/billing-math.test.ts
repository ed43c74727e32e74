import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chargeMicros } from "@/lib/money/charge";
import { answeredSeconds, billableSeconds, elapsedSeconds, isoToEpochMicros, priceCall } from "./billing-math";

const inc = (min: number, interval: number) => ({ min, interval });

describe("billableSeconds", () => {
  // [increment, answered seconds, billable seconds]: docs/contract.md §1 examples and the boundaries around them.
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
        (rate, increment, s, extra) =>
          priceCall(rate, increment, s).micros <= priceCall(rate, increment, s + extra).micros,
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

describe("priceCall with connect fee and minimum charge", () => {
  // Computed by hand: [rate, increment, answered s, connectFee, minCharge] -> [billable s, usage, connect fee charged, min applied, price], micros.
  const golden: [bigint, string, number, bigint | null, bigint | null, number, bigint, bigint, boolean, bigint][] = [
    // 15000 * 37 / 60 = 9250; + 10000
    [15_000n, "1/1", 37, 10_000n, null, 37, 9_250n, 10_000n, false, 19_250n],
    // 60/60 bills 61 s as 120 s: 24600 + 5000 = 29600 < 50000
    [12_300n, "60/60", 61, 5_000n, 50_000n, 120, 24_600n, 5_000n, true, 50_000n],
    // 1 * 1 / 60 = 0.0166.. -> 0; the minimum lifts it to 1
    [1n, "1/1", 1, null, null, 1, 0n, 0n, false, 0n],
    [1n, "1/1", 1, null, 1n, 1, 0n, 0n, true, 1n],
    // half-up once: 30 * 1 / 60 = 0.5 -> 1; 90 / 60 = 1.5 -> 2; the connect fee is whole micros
    [30n, "1/1", 1, 7n, null, 1, 1n, 7n, false, 8n],
    [90n, "1/1", 1, 3n, null, 1, 2n, 3n, false, 5n],
    [89n, "1/1", 1, 3n, null, 1, 1n, 3n, false, 4n],
    // unanswered: no connect fee, no minimum
    [10_000n, "60/60", 0, 10_000n, 50_000n, 0, 0n, 0n, false, 0n],
    // 30/6 bills 31 s as 36 s: 100000 * 36 / 60 = 60000; + 20000 = 80000, equal to the minimum: not applied
    [100_000n, "30/6", 31, 20_000n, 80_000n, 36, 60_000n, 20_000n, false, 80_000n],
    [100_000n, "30/6", 31, 20_000n, 80_001n, 36, 60_000n, 20_000n, true, 80_001n],
    // 1234567 * 3601 / 60 = 74094596.1166.. -> 74094596; + 500000
    [1_234_567n, "1/1", 3601, 500_000n, 1_000_000n, 3601, 74_094_596n, 500_000n, false, 74_594_596n],
    // a free rate with a connect fee costs the connect fee
    [0n, "1/1", 5, 25_000n, null, 5, 0n, 25_000n, false, 25_000n],
  ];
  it.each(golden)(
    "%s/min %s %i s fee %s min %s",
    (rate, text, answered, connectFee, minCharge, seconds, usage, fee, applied, price) => {
      const [min, interval] = text.split("/").map(Number);
      expect(
        priceCall(rate, inc(min, interval), answered, { connectFeeMicros: connectFee, minChargeMicros: minCharge }),
      ).toEqual({
        billableSeconds: seconds,
        usageMicros: usage,
        connectFeeMicros: fee,
        minChargeApplied: applied,
        micros: price,
      });
    },
  );

  it("without fees prices exactly as rate * billable seconds / 60", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 86_400 }), (rate, s) => {
        expect(priceCall(rate, inc(1, 1), s).micros).toBe(chargeMicros(rate, s));
      }),
    );
  });

  it("is never below the minimum nor below connect fee + usage when billed", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.integer({ min: 1, max: 86_400 }),
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        (rate, s, connectFee, minCharge) => {
          const c = priceCall(rate, inc(1, 1), s, { connectFeeMicros: connectFee, minChargeMicros: minCharge });
          expect(c.micros >= minCharge && c.micros >= connectFee + c.usageMicros).toBe(true);
          expect(c.micros).toBe(c.minChargeApplied ? minCharge : connectFee + c.usageMicros);
        },
      ),
    );
  });

  it("refuses negative fees", () => {
    expect(() => priceCall(1n, inc(1, 1), 1, { connectFeeMicros: -1n })).toThrow(RangeError);
    expect(() => priceCall(1n, inc(1, 1), 1, { minChargeMicros: -1n })).toThrow(RangeError);
  });
});
