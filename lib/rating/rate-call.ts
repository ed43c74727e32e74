import type { NewStoredCall } from "@/lib/calls/stored-call";
import { answeredSeconds, priceCall } from "./billing-math";
import { feesOf, type RateCard } from "./find-rate";

/**
 * The rating columns of a call (calls columns by property name), as both ingest and rerate write them;
 * rateDeckId/buyRateDeckId are the decks that rated each side, the fees are the matched rates' (null: none).
 */
export const CALL_RATING_KEYS = [
  "rated",
  "billDuration",
  "matchedPrefix",
  "sellRateMicros",
  "incrementMin",
  "incrementInterval",
  "priceMicros",
  "buyRateMicros",
  "buyBillDuration",
  "buyCostMicros",
  "rateDeckId",
  "connectFeeMicros",
  "minChargeMicros",
  "buyRateDeckId",
  "buyConnectFeeMicros",
  "buyMinChargeMicros",
] as const satisfies readonly (keyof NewStoredCall)[];

export type CallRating = Pick<NewStoredCall, (typeof CALL_RATING_KEYS)[number]>;

/**
 * Rates one call on its group's sell card and its supplier's buy card in force at its start (the
 * caller picks them: DatedCards.at), each side with its own increment and fees (docs/contract.md §1,
 * billing-math priceCall). No sell rate: unrated, price 0, billDuration 0, re-ratable later.
 * `answerMicros`/`endMicros` are epoch microseconds.
 */
export function rateCall(
  destination: string,
  answerMicros: number | null,
  endMicros: number,
  sellCard: RateCard | null,
  buyCard: RateCard | null,
): CallRating {
  const answered = answeredSeconds(answerMicros, endMicros);
  const sell = sellCard?.match(destination) ?? null;
  const buy = buyCard?.match(destination) ?? null;
  const buyCharge = buy && priceCall(buy.rateMicros, buy.increment, answered, feesOf(buy));
  const buySide = {
    buyRateMicros: buy?.rateMicros ?? null,
    buyBillDuration: buyCharge?.billableSeconds ?? null,
    buyCostMicros: buyCharge?.micros ?? null,
    buyRateDeckId: buy ? (buyCard?.deckId ?? null) : null,
    buyConnectFeeMicros: buy?.connectFeeMicros ?? null,
    buyMinChargeMicros: buy?.minChargeMicros ?? null,
  };
  if (!sell) {
    return {
      rated: false,
      billDuration: 0,
      matchedPrefix: null,
      sellRateMicros: null,
      incrementMin: null,
      incrementInterval: null,
      priceMicros: 0n,
      rateDeckId: null,
      connectFeeMicros: null,
      minChargeMicros: null,
      ...buySide,
    };
  }
  const charge = priceCall(sell.rateMicros, sell.increment, answered, feesOf(sell));
  return {
    rated: true,
    billDuration: charge.billableSeconds,
    matchedPrefix: sell.prefix,
    sellRateMicros: sell.rateMicros,
    incrementMin: sell.increment.min,
    incrementInterval: sell.increment.interval,
    priceMicros: charge.micros,
    rateDeckId: sellCard?.deckId ?? null,
    connectFeeMicros: sell.connectFeeMicros,
    minChargeMicros: sell.minChargeMicros,
    ...buySide,
  };
}
