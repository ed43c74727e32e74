"use server";

import { getDb } from "@/lib/db/client";
import { lookupAccountRate, type AccountRateResult } from "@/lib/portal/account-rate";
import { lookupBuyRates, type BuyRatesResult } from "@/lib/portal/buy-rates";
import { nameDestinations as nameDestinationsOf, type DestinationNames } from "@/lib/portal/destination-names";
import { getPortalPrincipal } from "@/lib/portal/session";

// The portal's server functions (lib/portal/portal-actions.ts): each resolves the session, then calls one
// domain function that validates its input and applies the session's reach and scopes.

const ENDED = { ok: false as const, code: "unauthorized", detail: "Your session has ended. Sign in again." };

export async function nameDestinations(input: unknown): Promise<DestinationNames> {
  const principal = await getPortalPrincipal();
  return principal ? nameDestinationsOf(await getDb(), principal, input) : {};
}

export async function rateForAccount(input: unknown): Promise<AccountRateResult> {
  const principal = await getPortalPrincipal();
  return principal ? lookupAccountRate(await getDb(), principal, input) : ENDED;
}

export async function buyRates(input: unknown): Promise<BuyRatesResult> {
  const principal = await getPortalPrincipal();
  return principal ? lookupBuyRates(await getDb(), principal, input) : ENDED;
}
