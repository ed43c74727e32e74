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
  /**
   * Compare with the suppliers' buy decks (the operator's costs: marginWarnings). Default true; false for a reseller,
   * who never sees the operator's costs (docs/contract.md §21): its warnings are parentCosts'.
   */
  supplierWarnings?: boolean;
}

/**
 * A child account's sell deck against its parent's own deck in force then, per prefix (docs/contract.md "Reseller
 * tiers", the margin guard): what the parent pays its own parent for the calls its customer pays it this rate for.
 */
export interface ParentCost {
  prefix: string;
  sellRate: string;
  /** The parent deck's longest prefix matching the sell prefix; null when the parent's deck does not price it. */
  buyPrefix: string | null;
  buyRate: string | null;
  marginPercent: string | null;
  /** `below_cost`: sell < buy (an import is refused without allowBelowCost); `unpriced`: the parent's deck has none. */
  status: "below_cost" | "low_margin" | "unpriced" | "ok";
}

export interface ParentCosts {
  /** The parent account (the reseller whose margin this is). */
  accountId: string;
  /** Its deck in force at the new deck's effective-from; null: none (every prefix unpriced). */
  deckId: number | null;
  belowCost: number;
  lowMargin: number;
  unpriced: number;
  /** At most MAX_WARNINGS: below cost first, then unpriced, low margin, ok; each by prefix. */
  rates: ParentCost[];
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
  /** A child account's sell deck: its rates against its parent's own deck (null for a root account, a buy deck). */
  parentCosts: ParentCosts | null;
}

const MAX_WARNINGS = 1000;
const STATUS_ORDER: Record<ParentCost["status"], number> = { below_cost: 0, unpriced: 1, low_margin: 2, ok: 3 };

/** The account's parent, or null for a root account (or an unknown one: the import answers that). */
async function parentOf(db: Executor, groupId: string): Promise<string | null> {
  const [row] = await queryRows<{ parent_id: string | null }>(
    db,
    sql`SELECT parent_id FROM billing_groups WHERE id = ${groupId}`,
  );
  return row?.parent_id ?? null;
}

/**
 * A sell deck (its rows, effective at `atMs`) against the parent's deck in force then; null for a root account.
 * Pure reads. Exact: rates compared in micro-units.
 */
export async function parentCostsOf(
  db: Executor,
  ownerId: string,
  rows: RateRow[],
  atMs: number,
  minMarginBps = 0,
): Promise<ParentCosts | null> {
  const parentId = await parentOf(db, ownerId);
  if (parentId === null) return null;
  const parentCard = await getRateCard(db, "sell", parentId, null, atMs);
  const minBps = BigInt(Math.max(0, Math.trunc(minMarginBps)));
  const out: ParentCosts = {
    accountId: parentId,
    deckId: parentCard?.deckId ?? null,
    belowCost: 0,
    lowMargin: 0,
    unpriced: 0,
    rates: [],
  };
  const all: ParentCost[] = [];
  for (const row of rows) {
    const sell = parseMicros(row.rate);
    const b = parentCard?.match(row.prefix) ?? null;
    let status: ParentCost["status"] = "ok";
    if (!b) status = "unpriced";
    else if (sell < b.rateMicros) status = "below_cost";
    else if ((sell - b.rateMicros) * 10_000n < minBps * sell) status = "low_margin";
    if (status === "below_cost") out.belowCost++;
    else if (status === "unpriced") out.unpriced++;
    else if (status === "low_margin") out.lowMargin++;
    all.push({
      prefix: row.prefix,
      sellRate: formatMicros(sell),
      buyPrefix: b?.prefix ?? null,
      buyRate: b ? formatMicros(b.rateMicros) : null,
      marginPercent: b ? marginPercent(sell, b.rateMicros) : null,
      status,
    });
  }
  all.sort((x, y) => STATUS_ORDER[x.status] - STATUS_ORDER[y.status] || (x.prefix < y.prefix ? -1 : 1));
  out.rates = all.slice(0, MAX_WARNINGS);
  return out;
}

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
    parentCosts: side === "sell" ? await parentCostsOf(db, ownerId, rows, atMs, options.minMarginBps) : null,
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
  const suppliers = options.supplierWarnings ?? true;
  const sellCards = !suppliers ? [] : side === "sell" ? [next] : await cardsInForce(db, "sell", atMs);
  const buyCards = !suppliers ? [] : side === "buy" ? [next] : await cardsInForce(db, "buy", atMs);
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
