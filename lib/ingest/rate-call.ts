import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import { answeredSeconds, priceCall } from "@/lib/rating/billing-math";
import { feesOf, type RateCard } from "@/lib/rating/find-rate";

export type StoredCall = typeof calls.$inferSelect;

/** The rating columns of a call, as both ingest and rerate write them. */
export interface CallRating {
  rated: boolean;
  billDuration: number;
  matchedPrefix: string | null;
  sellRateMicros: bigint | null;
  incrementMin: number | null;
  incrementInterval: number | null;
  priceMicros: bigint;
  buyRateMicros: bigint | null;
  buyBillDuration: number | null;
  buyCostMicros: bigint | null;
  /** The decks that rated each side, and the matched rates' fees (null: none). */
  rateDeckId: number | null;
  connectFeeMicros: bigint | null;
  minChargeMicros: bigint | null;
  buyRateDeckId: number | null;
  buyConnectFeeMicros: bigint | null;
  buyMinChargeMicros: bigint | null;
}

/**
 * Rates one call on its group's sell card and its supplier's buy card in force at its start (the
 * caller picks them: DatedCards.at), each side with its own increment and fees (CONTRACT section 1,
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

const CALL_TABLE_COLUMNS = Object.entries(getTableColumns(calls));

/**
 * Every calls column for raw SQL, aliased to its property name; int8 as text so it stays exact on
 * both engines (PGlite answers int8 as a JS number). Decode the rows with toStoredCall.
 */
export const CALL_COLUMNS: SQL = sql.raw(
  CALL_TABLE_COLUMNS.map(([key, column]) =>
    column.columnType === "PgBigInt64" ? `calls."${column.name}"::text AS "${key}"` : `calls."${column.name}" AS "${key}"`,
  ).join(", "),
);

/** A raw row selected with CALL_COLUMNS, decoded by Drizzle's own column mappers (dates, bigints). */
export function toStoredCall(raw: Record<string, unknown>): StoredCall {
  const out: Record<string, unknown> = {};
  for (const [key, column] of CALL_TABLE_COLUMNS) {
    const value = raw[key];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as StoredCall;
}

/**
 * Lowers each group's balance by the price of its rated calls: one atomic UPDATE per group (no
 * read-modify-write in JS), groups in id order so concurrent multi-group batches cannot deadlock.
 */
export async function debitBalances(tx: Executor, charged: Pick<StoredCall, "billingGroupId" | "rated" | "priceMicros">[]): Promise<void> {
  const totals = new Map<string, bigint>();
  for (const c of charged) {
    if (c.rated && c.priceMicros > 0n) totals.set(c.billingGroupId, (totals.get(c.billingGroupId) ?? 0n) + c.priceMicros);
  }
  for (const groupId of [...totals.keys()].sort()) {
    const total = totals.get(groupId)!;
    await tx.execute(sql`UPDATE billing_groups SET balance_micros = balance_micros - ${total.toString()}::bigint WHERE id = ${groupId}`);
  }
}

const RETRYABLE = new Set(["40P01", "40001"]); // deadlock detected, serialization failure

/** Runs a transaction again when PostgreSQL aborted it for a deadlock or serialization failure. */
export async function withRetry<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isRetryable(e)) throw e;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}

function isRetryable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && RETRYABLE.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
