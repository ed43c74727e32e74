import { describe, expect, it } from "vitest";
import { paymentStanding } from "./payment-standing";

describe("paymentStanding", () => {
  it("a prepaid document is prepaid whatever its total: the usage was paid from the balance", () => {
    for (const totalMicros of [12_340_000n, 0n, -5_000_000n])
      expect(paymentStanding({ billingMode: "prepaid", totalMicros })).toBe("prepaid");
  });

  it("a postpaid document is due, a credit or nothing due by the sign of its total", () => {
    expect(paymentStanding({ billingMode: "postpaid", totalMicros: 10_000n })).toBe("due");
    expect(paymentStanding({ billingMode: "postpaid", totalMicros: -10_000n })).toBe("credit");
    expect(paymentStanding({ billingMode: "postpaid", totalMicros: 0n })).toBe("nothing_due");
  });
});
