import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { formatMicros, parseMicros } from "@/lib/money/micros";
import {
  buildCard,
  getRateCard,
  ownerTable,
  type CardSide,
  type CardTuple,
  type RateCard,
  type RateMatch,
} from "./find-rate";
import { FIRST_DECK_FROM_MS, isOnChange, touchedPrefixes } from "./deck-review";
import { checkEffectiveFrom, checkUniquePrefixes, ownerHasDeck } from "./import-rates";
import { formatIncrement, type RateRow } from "./schemas";

/** The terms of one prefix, money as exact decimal text. */
export interface RateTerms {
  rate: string;
  increment: string;
  connectFee: string | null;
  minCharge: string | null;
  description: string | null;
}

export interface MarginWarning {
  /** The sell prefix whose rate is below a buy rate. */
  prefix: string;
  billingGroupId: string;
  sellRate: string;
  supplierId: string;
  /** The supplier's longest prefix matching the sell prefix. */
  buyPrefix: string;
  buyRate: string;
  /** (sell - buy) / sell in percent, 2 decimals, rounded toward zero; null when the sell rate is 0. */
  marginPercent: string | null;
  /** `below_cost`: sell < buy; `low_margin`: at or above cost but under the asked minimum margin. */
  reason: "below_cost" | "low_margin";
}

export interface DiffOptions {
  /** Also warn when the margin is under this many basis points (1/100 %) of the sell rate. Default 0: cost only. */
  minMarginBps?: number;
}

/** What `rates import --dry-run` prints: the new deck against the card in force when it takes effect. */
export interface DeckDiff {
  side: CardSide;
  ownerId: string;
  effectiveFrom: string;
  /** The deck in force at effectiveFrom that the new one would follow; null: none. */
  comparedWith: { deckId: number; effectiveFrom: string } | null;
  prefixes: number;
  added: (RateTerms & { prefix: string })[];
  removed: (RateTerms & { prefix: string })[];
  changed: { prefix: string; old: RateTerms; new: RateTerms }[];
  unchanged: number;
  /**
   * Sell rates below a supplier's buy rate (or under the asked minimum margin) for the longest buy prefix matching the sell prefix, per
   * minute (fees aside), with the decks in force at effectiveFrom: for a sell deck its prefixes
   * against every supplier; for a buy deck every group's sell prefixes against it.
   */
  marginWarnings: MarginWarning[];
  /**
   * marginWarnings lists at most MAX_WARNINGS, those on the rates the deck adds or changes first (what a reviewer
   * reads first, never cut off by the thousands on unchanged rates); this is how many there are.
   */
  marginWarningCount: number;
}

const MAX_WARNINGS = 1000;

/** (sell - buy) / sell as a percent with 2 decimals (truncated), exact in bigint. */
function marginPercent(sell: bigint, buy: bigint): string | null {
  if (sell === 0n) return null;
  const hundredths = ((sell - buy) * 10_000n) / sell;
  const sign = hundredths < 0n ? "-" : "";
  const abs = hundredths < 0n ? -hundredths : hundredths;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
}

const fee = (micros: bigint | null) => (micros === null ? null : formatMicros(micros));

function termsOf(m: RateMatch): RateTerms {
  return {
    rate: formatMicros(m.rateMicros),
    increment: formatIncrement(m.increment),
    connectFee: fee(m.connectFeeMicros),
    minCharge: fee(m.minChargeMicros),
    description: m.description,
  };
}

const sameTerms = (a: RateTerms, b: RateTerms) =>
  a.rate === b.rate &&
  a.increment === b.increment &&
  a.connectFee === b.connectFee &&
  a.minCharge === b.minCharge &&
  a.description === b.description;

/** A card built from rows in memory (not stored, deck id 0). */
function cardOfRows(side: CardSide, ownerId: string, effectiveFrom: Date, rows: RateRow[]): RateCard {
  const money = (text: string | undefined) => (text === undefined ? null : parseMicros(text).toString());
  const tuples: CardTuple[] = rows.map((r) => [
    r.prefix,
    parseMicros(r.rate).toString(),
    r.increment.min,
    r.increment.interval,
    r.description ?? null,
    money(r.connectFee),
    money(r.minCharge),
  ]);
  return buildCard(side, ownerId, 0, effectiveFrom, tuples);
}

async function cardsInForce(db: Executor, side: CardSide, atMs: number): Promise<RateCard[]> {
  const owners = await queryRows<{ id: string }>(db, sql`SELECT id FROM ${ownerTable(side)} ORDER BY id`);
  const cards: RateCard[] = [];
  for (const o of owners) {
    const card = await getRateCard(db, side, o.id, null, atMs);
    if (card) cards.push(card);
  }
  return cards;
}

/**
 * The diff of a deck against the card in force at its effective-from, and the margin guard. Reads
 * only; nothing is written. Same defaults as the import (effective now, or the epoch for a first deck).
 */
export async function diffDeck(
  db: Executor,
  side: CardSide,
  ownerId: string,
  rows: RateRow[],
  effectiveFrom?: Date,
  options: DiffOptions = {},
): Promise<DeckDiff> {
  const minBps = BigInt(Math.max(0, Math.trunc(options.minMarginBps ?? 0)));
  checkUniquePrefixes(rows);
  if (effectiveFrom) checkEffectiveFrom(effectiveFrom);
  const hasDeck = await ownerHasDeck(db, side, ownerId);
  const from = effectiveFrom ?? (hasDeck ? new Date() : new Date(FIRST_DECK_FROM_MS));
  const atMs = from.getTime();
  // The deck in force just before the new one would start.
  const current = await getRateCard(db, side, ownerId, null, atMs);
  const next = cardOfRows(side, ownerId, from, rows);

  const diff: DeckDiff = {
    side,
    ownerId,
    effectiveFrom: from.toISOString(),
    comparedWith: current && { deckId: current.deckId, effectiveFrom: current.effectiveFrom.toISOString() },
    prefixes: rows.length,
    added: [],
    removed: [],
    changed: [],
    unchanged: 0,
    marginWarnings: [],
    marginWarningCount: 0,
  };
  const old = new Map<string, RateTerms>();
  if (current) for (const m of current.entries()) old.set(m.prefix, termsOf(m));
  for (const m of next.entries()) {
    const terms = termsOf(m);
    const before = old.get(m.prefix);
    if (!before) diff.added.push({ prefix: m.prefix, ...terms });
    else if (sameTerms(before, terms)) diff.unchanged++;
    else diff.changed.push({ prefix: m.prefix, old: before, new: terms });
    old.delete(m.prefix);
  }
  for (const [prefix, terms] of old) diff.removed.push({ prefix, ...terms });
  const byPrefix = <T extends { prefix: string }>(a: T, b: T) =>
    a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0;
  diff.added.sort(byPrefix);
  diff.removed.sort(byPrefix);
  diff.changed.sort(byPrefix);

  const touched = touchedPrefixes(diff);
  const onChanges: MarginWarning[] = [];
  const others: MarginWarning[] = [];
  const sellCards = side === "sell" ? [next] : await cardsInForce(db, "sell", atMs);
  const buyCards = side === "buy" ? [next] : await cardsInForce(db, "buy", atMs);
  for (const sell of sellCards) {
    for (const s of sell.entries()) {
      for (const buy of buyCards) {
        const b = buy.match(s.prefix);
        if (!b) continue;
        const belowCost = s.rateMicros < b.rateMicros;
        // (s - b) / s < minBps / 10000, without division.
        if (!belowCost && (s.rateMicros - b.rateMicros) * 10_000n >= minBps * s.rateMicros) continue;
        diff.marginWarningCount++;
        const list = isOnChange(side, touched, { prefix: s.prefix, buyPrefix: b.prefix }) ? onChanges : others;
        if (list.length < MAX_WARNINGS) {
          list.push({
            prefix: s.prefix,
            billingGroupId: sell.ownerId,
            sellRate: formatMicros(s.rateMicros),
            supplierId: buy.ownerId,
            buyPrefix: b.prefix,
            buyRate: formatMicros(b.rateMicros),
            marginPercent: marginPercent(s.rateMicros, b.rateMicros),
            reason: belowCost ? "below_cost" : "low_margin",
          });
        }
      }
    }
  }
  diff.marginWarnings = [...onChanges, ...others].slice(0, MAX_WARNINGS);
  return diff;
}
