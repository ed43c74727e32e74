"use server";

import { getDb } from "@/lib/db/client";
import { lookupBuyRates, type BuyRatesResult } from "./buy-rates";
import { getPortalPrincipal } from "./session";

/** Each supplier's buy rate for the rate calculator: calls:read_cost sessions only (lib/portal/buy-rates.ts). */
export async function buyRates(input: { destination: string }): Promise<BuyRatesResult> {
  const principal = await getPortalPrincipal();
  if (!principal) return { ok: false, code: "unauthorized", detail: "Your session has ended. Sign in again." };
  return lookupBuyRates(await getDb(), principal, input);
}
