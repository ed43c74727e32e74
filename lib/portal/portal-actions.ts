import type { AccountRateResult } from "./account-rate";
import type { BuyRatesResult } from "./buy-rates";
import type { DestinationNames } from "./destination-names";

/**
 * The server functions portal components call (app/(portal)/actions.ts implements them; the portal layout hands
 * them down through components/portal/portal-actions.tsx, so components never import app/). Each checks the
 * session itself: a server function is an endpoint anyone can post to.
 */
export interface PortalActions {
  /** Names of called numbers' destinations (lib/portal/destination-names.ts). */
  nameDestinations(input: { billingGroupId: string; numbers: string[] }[]): Promise<DestinationNames>;
  /** A platform session's rate lookup on a chosen account's card (lib/portal/account-rate.ts). */
  rateForAccount(input: { account: string; destination: string }): Promise<AccountRateResult>;
  /** Each supplier's buy rate for a destination: calls:read_cost sessions only (lib/portal/buy-rates.ts). */
  buyRates(input: { destination: string }): Promise<BuyRatesResult>;
}
