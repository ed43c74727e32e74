import { eq } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { ownGroup, reachOf } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { microsToNumber } from "@/lib/money/micros";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { getRateCard } from "./find-rate";
import { formatIncrement, type Rate } from "./schemas";
import { billingGroupRequired } from "@/lib/billing/accounts";

// A group's currency is fixed at creation (nothing updates it), so the hot path reads it once per process.
const currencyCache = () => processSingleton("group-currency", () => new Map<string, string>());

async function groupCurrency(db: Executor, billingGroupId: string): Promise<string> {
  const cache = currencyCache();
  const known = cache.get(billingGroupId);
  if (known) return known;
  const [row] = await db
    .select({ currency: billingGroups.currency })
    .from(billingGroups)
    .where(eq(billingGroups.id, billingGroupId));
  if (!row) throw new ApiError("not_found", "The key's billing group no longer exists.");
  if (cache.size > 100_000) cache.clear();
  cache.set(billingGroupId, row.currency);
  return row.currency;
}

/**
 * GET /v1/rates: the sell rate of the key's group for a destination in the deck in force now, by
 * the rating module's longest-prefix match (a cached deck checked against the version the principal
 * already carries), with the rate's fees and when its deck took effect.
 */
export async function lookupRate(db: Executor, principal: Principal, destination: string): Promise<Rate> {
  const group = ownGroup(reachOf(principal));
  if (group === null) throw billingGroupRequired("GET /v1/rates");
  const digits = destination.startsWith("+") ? destination.slice(1) : destination;
  const card = await getRateCard(db, "sell", group, principal.rateCardVersion);
  const match = card?.match(digits);
  if (!card || !match)
    throw new ApiError("no_rate", `No prefix of ${destination} is in the rate card of this billing group.`);
  const money = (micros: bigint | null) => (micros === null ? null : microsToNumber(micros));
  return {
    destination,
    matchedPrefix: match.prefix,
    description: match.description,
    sellRate: microsToNumber(match.rateMicros),
    billingIncrement: formatIncrement(match.increment),
    connectFee: money(match.connectFeeMicros),
    minCharge: money(match.minChargeMicros),
    effectiveFrom: card.effectiveFrom.toISOString(),
    currency: await groupCurrency(db, group),
  };
}
