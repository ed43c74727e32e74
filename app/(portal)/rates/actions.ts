"use server";

import { getDb } from "@/lib/db/client";
import { lookupAccountRate, type AccountRateResult } from "@/lib/portal/account-rate";
import { getPortalPrincipal } from "@/lib/portal/session";

/** The platform rate calculator's lookup (GET /v1/rates answers platform keys 400 by contract). */
export async function rateForAccount(input: { account: string; destination: string }): Promise<AccountRateResult> {
  const principal = await getPortalPrincipal();
  if (!principal) return { ok: false, code: "unauthorized", detail: "Your session has ended. Sign in again." };
  return lookupAccountRate(await getDb(), principal, input);
}
