"use server";

import { getDb } from "@/lib/db/client";
import { lookupAccountRate, type AccountRateResult } from "./account-rate";
import { getPortalPrincipal } from "./session";

// Server actions of the portal (a "use server" module, named *-actions.ts): the client components call them as
// functions and Next turns each call into a POST to this server. Only these, of lib's server modules, may a
// component import (.dependency-cruiser.cjs).

/** The platform rate calculator's lookup (GET /v1/rates answers platform keys 400 by contract). */
export async function rateForAccount(input: { account: string; destination: string }): Promise<AccountRateResult> {
  const principal = await getPortalPrincipal();
  if (!principal) return { ok: false, code: "unauthorized", detail: "Your session has ended. Sign in again." };
  return lookupAccountRate(await getDb(), principal, input);
}
