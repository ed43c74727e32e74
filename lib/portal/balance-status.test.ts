import { describe, expect, it } from "vitest";
import { LOW_BALANCE_MICROS, accountStatusText, balanceStatus } from "./balance-status";

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

describe("account status text", () => {
  it("says why an account takes no calls: an operator, or a balance at its credit limit", () => {
    expect(accountStatusText({ disabled: true, disabledByOperator: true })).toBe("Disabled by an operator");
    expect(accountStatusText({ disabled: true, disabledByOperator: false })).toBe(
      "Disabled: the balance is at the credit limit",
    );
    expect(accountStatusText({ disabled: true, disabledByOperator: false }, "short")).toBe("Disabled: at credit limit");
    expect(accountStatusText({ disabled: false, disabledByOperator: false }, "short")).toBe("Enabled");
  });
});
