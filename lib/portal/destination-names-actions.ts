"use server";

import { getDb } from "@/lib/db/client";
import { nameDestinations as nameDestinationsOf, type DestinationNames } from "./destination-names";
import { getPortalPrincipal } from "./session";

/** Names of called numbers' destinations for the portal's lists (lib/portal/destination-names.ts); none without a session. */
export async function nameDestinations(
  input: { billingGroupId: string; numbers: string[] }[],
): Promise<DestinationNames> {
  const principal = await getPortalPrincipal();
  return principal ? nameDestinationsOf(await getDb(), principal, input) : {};
}
