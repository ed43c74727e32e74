import { describe, expect, it, vi } from "vitest";
import { fromHeader } from "@/lib/mail/send-mail";
import { billingDetailsSchema, issuerBlockOf } from "./billing-details";

describe("billing details", () => {
  it("keeps an address's non-empty lines, trimmed, and refuses more than 6 or control characters", () => {
    expect(billingDetailsSchema.parse({ name: " Co ", address: " 1 Road \r\n\r\n Town ", taxId: "" })).toEqual({
      name: "Co",
      address: "1 Road\nTown",
      taxId: "",
    });
    expect(billingDetailsSchema.safeParse({ name: "", address: "a\nb\nc\nd\ne\nf\ng", taxId: "" }).success).toBe(false);
    expect(billingDetailsSchema.safeParse({ name: "A\u0007", address: "", taxId: "" }).success).toBe(false);
  });

  it("issues under the billing name, else the account's, with the tax id as the address's last line", () => {
    expect(issuerBlockOf({ name: "Acct" }, { name: "", address: "", taxId: "" })).toEqual({
      name: "Acct",
      address: "",
    });
    expect(issuerBlockOf({ name: "Acct" }, { name: "Legal", address: "1 Road", taxId: "X1" })).toEqual({
      name: "Legal",
      address: "1 Road\nTax ID: X1",
    });
  });

  it("sends under the reseller's name from MAIL_FROM's address", () => {
    vi.stubEnv("MAIL_FROM", "Callbook <billing@example.test>");
    expect(fromHeader()).toBe("Callbook <billing@example.test>");
    expect(fromHeader("Resell\r\nBcc: x")).toEqual({ name: "Resell Bcc: x", address: "billing@example.test" });
    vi.unstubAllEnvs();
  });
});
