import { describe, expect, it } from "vitest";
import { LOW_BALANCE_MICROS, balanceStatus } from "./balance-status";

describe("balance status", () => {
  it("warns below the threshold, to the micro", () => {
    expect(balanceStatus(LOW_BALANCE_MICROS, false)).toBe("ok");
    expect(balanceStatus(LOW_BALANCE_MICROS - 1n, false)).toBe("low");
    expect(balanceStatus(-5_000_000n, false)).toBe("low");
  });

  it("reports a disabled group as disabled whatever its balance", () => {
    expect(balanceStatus(1_000_000_000n, true)).toBe("disabled");
  });
});
