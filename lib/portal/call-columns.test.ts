import { describe, expect, it } from "vitest";
import { callColumnsFor } from "./call-columns";

describe("call log columns per session", () => {
  it("gives cost columns only to cost sessions and the account column only to platform sessions", () => {
    expect(callColumnsFor({ canReadCost: false, billingGroupId: "bg_1" })).toEqual([
      "startTime",
      "direction",
      "from",
      "to",
      "duration",
      "billDuration",
      "hangupCause",
      "price",
    ]);
    expect(callColumnsFor({ canReadCost: true, billingGroupId: "bg_1" }).slice(-3)).toEqual([
      "buyCost",
      "margin",
      "supplierId",
    ]);
    const platform = callColumnsFor({ canReadCost: false, billingGroupId: null });
    expect(platform.slice(0, 2)).toEqual(["startTime", "account"]);
    expect(platform).not.toContain("margin");
  });
});
