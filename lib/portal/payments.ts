import type { Principal } from "@/lib/auth/principal";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { operatorContact, stripeSettings } from "@/lib/config/env";
import type { Db } from "@/lib/db/client";
import { currencyDecimals } from "@/lib/money/currency-decimals";
import { formatMicros } from "@/lib/money/micros";
import { readAutoRecharge } from "@/lib/payments/auto-recharge";
import { resellerNameOf } from "@/lib/billing/reseller-name";
import { topUpLimitsMicros } from "@/lib/payments/top-up-limits";
import type { HowToPay } from "./how-to-pay";

/** What the dashboard's payments card shows: plain strings, for a server component. */
export interface PaymentsPanel {
  currency: string;
  min: string;
  max: string;
  /** The input's step: one minor unit ("0.01"; "1" for JPY). */
  step: string;
  autoRecharge: { threshold: string; amount: string } | null;
  cardSaved: boolean;
  lastCharge: { status: string; amount: string; at: string; error: string | null } | null;
}

/**
 * Who may pay: a member of a group whose role reads billing (owner, billing: billing:read), while a payment provider
 * is configured (its settings are: configuredPaymentProvider() answers one exactly then; asking it would load the
 * provider's SDK into every dashboard render). null otherwise: the card is not shown.
 */
export function canPay(principal: Principal): boolean {
  return !isPlatform(reachOf(principal)) && principal.scopes.has("billing:read") && stripeSettings() !== undefined;
}

/**
 * How this customer's session gets money onto the account, whatever its role and whether card payments are set up
 * (issue 30: a disabled account said "top up or contact support" with neither). null for platform sessions: staff
 * top up from the console. A reseller's customer (`reseller`: resellerNameOf's name) is topped up by its reseller.
 */
export function howToPay(principal: Principal, reseller: string | null = null): HowToPay | null {
  if (isPlatform(reachOf(principal))) return null;
  if (reseller !== null) return { kind: "reseller", contact: reseller };
  const contact = operatorContact() ?? null;
  if (canPay(principal)) return { kind: "card", contact };
  return { kind: stripeSettings() !== undefined ? "member" : "contact", contact };
}

/** The dashboard's how-to-pay and, for a person who pays here by card, the payments card (null otherwise). */
export async function dashboardPayments(
  db: Db,
  principal: Principal,
): Promise<{ pay: HowToPay | null; panel: PaymentsPanel | null }> {
  if (isPlatform(reachOf(principal))) return { pay: null, panel: null };
  const pay = howToPay(principal, await resellerNameOf(db, principal.billingGroupId!));
  return { pay, panel: pay?.kind === "card" ? await paymentsPanel(db, principal) : null };
}

async function paymentsPanel(db: Db, principal: Principal): Promise<PaymentsPanel | null> {
  const state = await readAutoRecharge(db, principal.billingGroupId!);
  if (!state) return null;
  const decimals = currencyDecimals(state.currency);
  const money = (micros: bigint) => formatMicros(micros, decimals);
  const limits = topUpLimitsMicros();
  return {
    currency: state.currency,
    min: money(limits.min),
    max: money(limits.max),
    step: decimals === 0 ? "1" : `0.${"0".repeat(decimals - 1)}1`,
    autoRecharge: state.setting
      ? { threshold: money(state.setting.thresholdMicros), amount: money(state.setting.amountMicros) }
      : null,
    cardSaved: state.cardSaved,
    lastCharge: state.lastCharge
      ? {
          status: state.lastCharge.status,
          amount: money(state.lastCharge.amountMicros),
          at: state.lastCharge.at.toISOString(),
          error: state.lastCharge.error,
        }
      : null,
  };
}
