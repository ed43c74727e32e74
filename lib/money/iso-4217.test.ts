import { describe, expect, it } from "vitest";
import { ACCOUNT_CURRENCIES, isAccountCurrency } from "./iso-4217";

describe("account currencies", () => {
  it("are unique three-letter codes in order, the ones the product bills in among them", () => {
    expect(new Set(ACCOUNT_CURRENCIES).size).toBe(ACCOUNT_CURRENCIES.length);
    expect([...ACCOUNT_CURRENCIES].sort()).toEqual([...ACCOUNT_CURRENCIES]);
    for (const code of ACCOUNT_CURRENCIES) expect(code).toMatch(/^[A-Z]{3}$/);
    for (const code of ["USD", "EUR", "GBP", "JPY", "INR", "KWD", "BHD", "XCG"])
      expect(isAccountCurrency(code)).toBe(true);
  });

  it("refuses typos, fund and test codes, metals and withdrawn codes", () => {
    for (const code of ["USX", "EUD", "XXX", "XTS", "XAU", "XDR", "USN", "CHE", "HRK", "BGN", "ANG", "ZWL", "usd"])
      expect(isAccountCurrency(code)).toBe(false);
  });

  it("are all known to Intl with their minor unit (what invoices round to)", () => {
    for (const code of ACCOUNT_CURRENCIES)
      expect(() => new Intl.NumberFormat("en-US", { style: "currency", currency: code })).not.toThrow();
  });
});
