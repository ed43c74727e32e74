import { describe, expect, it } from "vitest";
import { LOW_BALANCE_MICROS, PROVIDER_HOLD_TEXT, accountStatusText, balanceStatus } from "./balance-status";

describe("balance status", () => {
  it("warns below the threshold, to the micro", () => {
    expect(balanceStatus(LOW_BALANCE_MICROS, false)).toBe("ok");
    expect(balanceStatus(LOW_BALANCE_MICROS - 1n, false)).toBe("low");
    expect(balanceStatus(-5_000_000n, false)).toBe("low");
  });

  it("reports a disabled group as disabled whatever its balance", () => {
    expect(balanceStatus(1_000_000_000n, true)).toBe("disabled");
  });

  it("says calls are paused when a provider above the account is on hold, without its figures", () => {
    expect(balanceStatus(1_000_000_000n, false, true)).toBe("held");
    expect(balanceStatus(LOW_BALANCE_MICROS - 1n, false, true)).toBe("held");
    // The account's own disabling is what it can act on: said first.
    expect(balanceStatus(0n, true, true)).toBe("disabled");
    expect(PROVIDER_HOLD_TEXT).toBe("Calls are paused: your provider's account is on hold. Contact your provider.");
    expect(PROVIDER_HOLD_TEXT).not.toMatch(/bg_|\d/);
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
