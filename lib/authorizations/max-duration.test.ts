import { describe, expect, it } from "vitest";
import { priceCall } from "@/lib/rating/billing-math";
import { maxAffordableSeconds } from "./max-duration";

const priceOf =
  (rate: bigint, min: number, interval: number, connectFeeMicros = 0n, minChargeMicros = 0n) =>
  (s: number) =>
    priceCall(rate, { min, interval }, s, { connectFeeMicros, minChargeMicros }).micros;

/** The definition, by brute force. */
function bruteForce(price: (s: number) => bigint, available: bigint, cap: number): number {
  let best = 0;
  for (let d = 1; d <= cap; d++) if (price(d + 1) <= available) best = d;
  return best;
}

describe("maxAffordableSeconds", () => {
  it("keeps one second for the ingest's rounding up: 1/1 at 0.60/min with 1.00 allows 99 s, reserving 100 s", () => {
    const price = priceOf(600_000n, 1, 1);
    expect(maxAffordableSeconds(price, 1_000_000n, 86_400)).toBe(99);
    expect(price(100)).toBe(1_000_000n);
    expect(price(101)).toBeGreaterThan(1_000_000n);
  });

  it("60/60: two minutes affordable -> cut at 119 s, which bills 120 s", () => {
    const price = priceOf(1_000_000n, 60, 60);
    expect(maxAffordableSeconds(price, 2_000_000n, 86_400)).toBe(119);
    expect(maxAffordableSeconds(price, 1_999_999n, 86_400)).toBe(59);
    expect(maxAffordableSeconds(price, 999_999n, 86_400)).toBe(0);
  });

  it("counts the connect fee and the minimum charge: 0.60/min + 0.10 fee, minimum 0.50, with 1.00 available allows 89 s", () => {
    const price = priceOf(600_000n, 1, 1, 100_000n, 500_000n);
    expect(maxAffordableSeconds(price, 1_000_000n, 86_400)).toBe(89); // 0.10 + 0.90 = 1.00 at 90 s
    expect(maxAffordableSeconds(price, 499_999n, 86_400)).toBe(0); // not even the minimum
    expect(maxAffordableSeconds(price, 500_000n, 86_400)).toBe(39); // the minimum covers up to 40 s
  });

  it("answers 0 when not even a second is affordable, the cap when the rate is free", () => {
    expect(maxAffordableSeconds(priceOf(600_000n, 1, 1), 19_999n, 3600)).toBe(0);
    expect(maxAffordableSeconds(priceOf(600_000n, 1, 1), -5n, 3600)).toBe(0);
    expect(maxAffordableSeconds(priceOf(0n, 60, 60), 0n, 3600)).toBe(3600);
    expect(maxAffordableSeconds(priceOf(600_000n, 1, 1), 10n ** 12n, 3600)).toBe(3600);
  });

  it("agrees with the brute-force definition over many rates, increments and balances (half-up rounding included)", () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 400; i++) {
      const increment = [
        [1, 1],
        [60, 60],
        [30, 6],
        [0, 6],
        [60, 1],
        [6, 6],
      ][rnd(6)];
      const rate = BigInt(1 + rnd(3_000_000));
      // Connect fee and minimum charge (README "Billing and rating") half of the time.
      const fees = rnd(2) === 0 ? [0n, 0n] : [BigInt(rnd(200_000)), BigInt(rnd(1_000_000))];
      const price = priceOf(rate, increment[0], increment[1], fees[0], fees[1]);
      const available = BigInt(rnd(5_000_000));
      const cap = 1 + rnd(900);
      expect(maxAffordableSeconds(price, available, cap)).toBe(bruteForce(price, available, cap));
    }
  });
});
