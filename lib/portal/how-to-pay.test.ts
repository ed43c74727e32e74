import { afterEach, describe, expect, it, vi } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { scopesOfRole } from "@/lib/auth/roles";
import { howToPayText } from "./how-to-pay";
import { howToPay } from "./payments";

// Issue 30: a disabled account said "Top up the balance or contact support" with no button and no contact, and with
// payments off nothing said how to pay at all.

function member(role: string, billingGroupId: string | null = "bg_1"): Principal {
  return {
    keyId: "usr_1",
    scopes: scopesOfRole(role, { platform: billingGroupId === null, costRoles: [] }),
    billingGroupId,
    rateCardVersion: null,
    via: "user_session",
    role,
  };
}

function paymentsOn(): void {
  vi.stubEnv("STRIPE_SECRET_KEY", "sk_test_x");
  vi.stubEnv("STRIPE_WEBHOOK_SECRET", "whsec_x");
}

function paymentsOff(): void {
  vi.stubEnv("STRIPE_SECRET_KEY", "");
  vi.stubEnv("STRIPE_WEBHOOK_SECRET", "");
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("how a customer pays", () => {
  it("with card payments on: the roles that pay get the top-up form, the others are told who pays", () => {
    paymentsOn();
    vi.stubEnv("OPERATOR_CONTACT", "billing@operator.example");
    expect(howToPay(member("owner"))).toEqual({ kind: "card", contact: "billing@operator.example" });
    expect(howToPay(member("billing"))).toEqual({ kind: "card", contact: "billing@operator.example" });
    expect(howToPayText(howToPay(member("billing"))!)).toBe("Top up by card, or contact billing@operator.example.");
    expect(howToPay(member("viewer"))).toEqual({ kind: "member", contact: "billing@operator.example" });
    expect(howToPayText(howToPay(member("viewer"))!)).toBe(
      "An owner or billing member of your organization tops up by card here; or contact billing@operator.example.",
    );
  });

  it("with card payments off: every role is given the operator's contact (OPERATOR_CONTACT)", () => {
    paymentsOff();
    vi.stubEnv("OPERATOR_CONTACT", "  +1 555 0100\n ");
    for (const role of ["owner", "billing", "viewer"]) {
      const pay = howToPay(member(role))!;
      expect(pay, role).toEqual({ kind: "contact", contact: "+1 555 0100" });
      expect(howToPayText(pay)).toBe("Card payments are not set up here: to top up, contact +1 555 0100.");
    }
  });

  it("without a contact set, it still says whom to ask; platform staff top up from the console", () => {
    paymentsOff();
    vi.stubEnv("OPERATOR_CONTACT", "");
    expect(howToPayText(howToPay(member("billing"))!)).toBe(
      "Card payments are not set up here: to top up, contact the operator of this service.",
    );
    expect(howToPay(member("owner", null))).toBeNull();
  });

  it("a reseller's customer is topped up by its reseller, whatever the role, with card payments on or off", () => {
    for (const on of [paymentsOn, paymentsOff]) {
      on();
      vi.stubEnv("OPERATOR_CONTACT", "billing@operator.example");
      for (const role of ["owner", "billing", "viewer"]) {
        const pay = howToPay(member(role), "North Resale Ltd")!;
        expect(pay, role).toEqual({ kind: "reseller", contact: "North Resale Ltd" });
        expect(howToPayText(pay)).toBe(
          "Your account is topped up by North Resale Ltd, who bills it: contact them to add money.",
        );
      }
    }
  });
});
