"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { auditActorOf } from "@/lib/audit/actor";
import { clientAddress, siteOrigin } from "@/lib/auth/request-origin";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { parseMicros } from "@/lib/money/micros";
import { setAutoRecharge } from "@/lib/payments/auto-recharge";
import { configuredPaymentProvider } from "@/lib/payments/configured-provider";
import { startTopUp } from "@/lib/payments/start-top-up";
import { canPay } from "./payments";
import { getPortalPrincipal } from "./session";

// The dashboard's payment forms (server actions: Next checks that the post comes from this site's page). Each acts
// as the signed-in member, whose role must read billing (owner, billing), for their own group.

function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value.trim().slice(0, 40) : "";
}

function amountOf(text: string): bigint | null {
  try {
    return parseMicros(text);
  } catch {
    return null;
  }
}

async function payer() {
  const principal = await getPortalPrincipal();
  if (!principal) redirect("/sign-in");
  if (!canPay(principal)) redirect("/?payment=error&message=" + encodeURIComponent("Your role cannot pay here."));
  return principal;
}

const refused = (e: unknown, fallback: string) =>
  e instanceof ApiError ? [e.detail, ...(e.errors ?? []).map((x) => `${x.param} ${x.message}`)].join(" ") : fallback;

/** Top up: a Checkout Session at the provider, and off to its page. The balance moves when the provider says paid. */
export async function topUpAction(form: FormData): Promise<void> {
  const principal = await payer();
  const amountMicros = amountOf(field(form, "amount"));
  if (amountMicros === null) redirect("/?payment=error&message=" + encodeURIComponent("Enter an amount."));
  const h = await headers();
  let url: string;
  try {
    ({ url } = await startTopUp(await getDb(), configuredPaymentProvider()!, {
      billingGroupId: principal.billingGroupId!,
      amountMicros,
      actor: auditActorOf(principal),
      address: clientAddress(h),
      origin: siteOrigin(h),
    }));
  } catch (e) {
    redirect("/?payment=error&message=" + encodeURIComponent(refused(e, "The payment page could not be opened.")));
  }
  redirect(url);
}

/** Sets or turns off auto-recharge (audited). */
export async function autoRechargeAction(form: FormData): Promise<void> {
  const principal = await payer();
  const enabled = form.get("enabled") === "on";
  const threshold = amountOf(field(form, "threshold"));
  const amount = amountOf(field(form, "amount"));
  if (enabled && (threshold === null || amount === null))
    redirect("/?payment=error&message=" + encodeURIComponent("Enter a threshold and an amount."));
  try {
    await setAutoRecharge(
      await getDb(),
      principal.billingGroupId!,
      enabled ? { thresholdMicros: threshold!, amountMicros: amount! } : null,
      { actor: auditActorOf(principal), address: clientAddress(await headers()) },
    );
  } catch (e) {
    redirect("/?payment=error&message=" + encodeURIComponent(refused(e, "The setting could not be saved.")));
  }
  redirect("/?payment=auto-recharge-saved");
}
