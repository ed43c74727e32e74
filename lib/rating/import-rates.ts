import { sql } from "drizzle-orm";
import type { Db, Executor, Tx } from "@/lib/db/client";
import { queryRows } from "@/lib/db/client";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { ChangeContext } from "@/lib/billing/change-context";
import { parseMicros } from "@/lib/money/micros";
import { FIRST_DECK_FROM_MS } from "./deck-review";
import type { RateRow } from "./schemas";
import { ownerColumn, ownerTable, ratesTable, type CardSide } from "./find-rate";

// No trigger acts on rating's tables (rate_decks, sell_rates, buy_rates, suppliers). Bumping a billing group's
// rate_card_version here notifies every process's principal cache (lib/auth/triggers.ts): a principal carries it.

export interface RateImportResult {
  /** Billing group id (sell card) or supplier id (buy card). */
  ownerId: string;
  imported: number;
  /** The owner's rate_card_version after the import. */
  rateCardVersion: number;
  /** The new deck. */
  deckId: number;
  effectiveFrom: Date;
}

export interface RateImportOptions {
  /**
   * When the deck takes effect. Default: now, or the epoch when the owner has no deck yet (its
   * first card then covers every call, as the cards that existed before dated decks do).
   */
  effectiveFrom?: Date;
  /**
   * Who imports (the CLI, a platform key or staff session over /v1): the audit event `rate_deck.imported` is then
   * written in the import's transaction. Seeding code (fixtures, the demo) passes none.
   */
  by?: ChangeContext;
}

/** The owner of the card does not exist. */
export class RateCardOwnerNotFoundError extends Error {}

/** The owner already has a deck effective from that instant: decks are history and never replaced. */
export class RateDeckExistsError extends Error {}

const CHUNK = 5_000;
/** Timestamps a deck can take effect at: the calls ingest accepts start in 1970..now+1 day. */
const MIN_EFFECTIVE_MS = FIRST_DECK_FROM_MS;
const MAX_EFFECTIVE_MS = Date.UTC(9999, 11, 31);

/** Refuses a prefix listed twice (the CSV parser does too; this guards other callers). */
export function checkUniquePrefixes(rows: RateRow[]): void {
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.prefix)) throw new RangeError(`prefix ${row.prefix} appears twice`);
    seen.add(row.prefix);
  }
}

export function checkEffectiveFrom(effectiveFrom: Date): void {
  const ms = effectiveFrom.getTime();
  if (!Number.isFinite(ms) || ms < MIN_EFFECTIVE_MS || ms > MAX_EFFECTIVE_MS) {
    throw new RangeError("effectiveFrom must be a timestamp from 1970-01-01T00:00:00Z on");
  }
}

/** Whether the owner exists and has any deck; throws RateCardOwnerNotFoundError when it does not exist. */
export async function ownerHasDeck(db: Executor, side: CardSide, ownerId: string): Promise<boolean> {
  const rows = await queryRows<{ has: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM rate_decks d WHERE d.${ownerColumn(side)} = o.id) AS has FROM ${ownerTable(side)} o WHERE o.id = ${ownerId}`,
  );
  if (rows.length === 0)
    throw new RateCardOwnerNotFoundError(`no ${side === "sell" ? "billing group" : "supplier"} ${ownerId}`);
  return rows[0].has;
}

/**
 * Adds a whole deck in one transaction and bumps the owner's rate_card_version, so readers see
 * the decks before or after, never a half-written one, and every process's cache notices the change.
 * The decks already there stay: calls are rated with the deck in force at their start.
 */
async function addDeck(
  db: Db,
  side: CardSide,
  ownerId: string,
  rows: RateRow[],
  progress: ((done: number, total: number) => void) | undefined,
  options: RateImportOptions,
): Promise<RateImportResult> {
  checkUniquePrefixes(rows);
  if (options.effectiveFrom) checkEffectiveFrom(options.effectiveFrom);
  const fee = (text: string | undefined) => (text === undefined ? null : parseMicros(text).toString());
  const records = rows.map((r) => ({
    p: r.prefix,
    r: parseMicros(r.rate).toString(),
    m: r.increment.min,
    i: r.increment.interval,
    d: r.description ?? null,
    c: fee(r.connectFee),
    n: fee(r.minCharge),
  }));
  return db.transaction(async (tx: Tx) => {
    // One import per card at a time: the default effective-from depends on the decks already there.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`rate-card:${side}:${ownerId}`}))`);
    const hasDeck = await ownerHasDeck(tx, side, ownerId);
    const effectiveFrom = options.effectiveFrom ?? (hasDeck ? new Date() : new Date(FIRST_DECK_FROM_MS));
    const clash = await queryRows<{ id: string }>(
      tx,
      sql`SELECT id::text AS id FROM rate_decks WHERE ${ownerColumn(side)} = ${ownerId} AND effective_from = ${effectiveFrom.toISOString()}::timestamptz`,
    );
    if (clash.length > 0) {
      throw new RateDeckExistsError(
        `deck ${clash[0].id} of ${ownerId} is already effective from ${effectiveFrom.toISOString()}; decks are never replaced`,
      );
    }
    const [deck] = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO rate_decks (${ownerColumn(side)}, effective_from, imported_by_type, imported_by_id, imported_by_label)
          VALUES (${ownerId}, ${effectiveFrom.toISOString()}::timestamptz, ${options.by?.actor.type ?? null}, ${options.by?.actor.id ?? null},
                  ${options.by?.actor.label ?? null}) RETURNING id::text AS id`,
    );
    for (let at = 0; at < records.length; at += CHUNK) {
      const json = JSON.stringify(records.slice(at, at + CHUNK));
      await tx.execute(sql`INSERT INTO ${ratesTable(side)} (deck_id, ${ownerColumn(side)}, prefix, rate_micros, increment_min, increment_interval,
                             description, connect_fee_micros, min_charge_micros)
                           SELECT ${deck.id}::bigint, ${ownerId}, x.p, x.r, x.m, x.i, x.d, x.c, x.n
                           FROM json_to_recordset(${json}::json) AS x(p text, r bigint, m integer, i integer, d text, c bigint, n bigint)`);
      progress?.(Math.min(at + CHUNK, records.length), records.length);
    }
    // Last, so the owner row (which ingest also updates) stays locked only for a moment.
    const [bumped] = await queryRows<{ v: number | bigint }>(
      tx,
      sql`UPDATE ${ownerTable(side)} SET rate_card_version = rate_card_version + 1 WHERE id = ${ownerId} RETURNING rate_card_version AS v`,
    );
    const result: RateImportResult = {
      ownerId,
      imported: records.length,
      rateCardVersion: Number(bumped.v),
      deckId: Number(deck.id),
      effectiveFrom,
    };
    if (options.by) {
      await recordAuditEvent(tx, {
        actor: options.by.actor,
        action: "rate_deck.imported",
        // A sell deck concerns its group; a buy deck is the platform's own.
        billingGroupId: side === "sell" ? ownerId : null,
        targetType: "rate_deck",
        targetId: deck.id,
        address: options.by.address,
        after: { side, ownerId, deckId: result.deckId, effectiveFrom, rates: records.length },
      });
    }
    return result;
  });
}

/** Adds a sell deck to a billing group, effective from `options.effectiveFrom` (see RateImportOptions). */
export function importSellRates(
  db: Db,
  billingGroupId: string,
  rows: RateRow[],
  progress?: (done: number, total: number) => void,
  options: RateImportOptions = {},
) {
  return addDeck(db, "sell", billingGroupId, rows, progress, options);
}

/** Adds a buy deck to a supplier; same rules as importSellRates. */
export function importBuyRates(
  db: Db,
  supplierId: string,
  rows: RateRow[],
  progress?: (done: number, total: number) => void,
  options: RateImportOptions = {},
) {
  return addDeck(db, "buy", supplierId, rows, progress, options);
}
