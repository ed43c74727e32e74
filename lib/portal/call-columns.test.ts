import { describe, expect, it } from "vitest";
import {
  callColumnsFor,
  chosenCallColumns,
  columnsWidthRem,
  defaultCallColumns,
  DESKTOP_BUDGET_REM,
} from "./call-columns";

describe("call log columns per session", () => {
  it("gives cost columns only to cost sessions, the supplier only to the platform's, the account column to sessions of several accounts", () => {
    expect(callColumnsFor({ canReadCost: false, billingGroupId: "bg_1" })).toEqual([
      "startTime",
      "direction",
      "from",
      "to",
      "duration",
      "billDuration",
      "status",
      "hangupCause",
      "price",
    ]);
    expect(callColumnsFor({ canReadCost: true, billingGroupId: null }).slice(-3)).toEqual([
      "buyCost",
      "margin",
      "supplierId",
    ]);
    // A reseller's cost view: its own buy cost and margin, never the operator's supplier; its subtree's accounts.
    const reseller = callColumnsFor({ canReadCost: true, billingGroupId: "bg_1", reachesSeveral: true });
    expect(reseller.slice(-2)).toEqual(["buyCost", "margin"]);
    expect(reseller).not.toContain("supplierId");
    expect(reseller.slice(0, 2)).toEqual(["startTime", "account"]);
    const platform = callColumnsFor({ canReadCost: false, billingGroupId: null });
    expect(platform.slice(0, 2)).toEqual(["startTime", "account"]);
    expect(platform).not.toContain("margin");
  });

  it("defaults to columns that fit 1440 px, margin and supplier included for the widest session", () => {
    for (const session of [
      { canReadCost: false, billingGroupId: "bg_1" },
      { canReadCost: true, billingGroupId: "bg_1" },
      { canReadCost: true, billingGroupId: "bg_1", reachesSeveral: true },
      { canReadCost: true, billingGroupId: null },
    ]) {
      const shown = defaultCallColumns(callColumnsFor(session));
      expect(columnsWidthRem(shown)).toBeLessThanOrEqual(DESKTOP_BUDGET_REM);
      expect(shown).toContain("status");
      expect(shown).not.toContain("hangupCause");
      if (session.canReadCost) expect(shown).toContain("margin");
      if (session.canReadCost && !session.billingGroupId) expect(shown).toContain("supplierId");
      // A reseller's account column takes buy cost's place by default (its margin stays).
      if (session.canReadCost && session.billingGroupId && !("reachesSeveral" in session))
        expect(shown).toContain("buyCost");
    }
    expect(defaultCallColumns(callColumnsFor({ canReadCost: false, billingGroupId: "bg_1" }))).toContain(
      "billDuration",
    );
  });

  it("reads a stored choice against what the session may show, in the log's order", () => {
    const read = callColumnsFor({ canReadCost: false, billingGroupId: "bg_1" });
    expect(chosenCallColumns(read, JSON.stringify(["price", "hangupCause", "margin", 7]))).toEqual([
      "startTime",
      "hangupCause",
      "price",
    ]);
    expect(chosenCallColumns(read, "not json")).toEqual(defaultCallColumns(read));
    expect(chosenCallColumns(read, JSON.stringify(["margin"]))).toEqual(defaultCallColumns(read));
    expect(chosenCallColumns(read, null)).toEqual(defaultCallColumns(read));
  });
});
