import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { PrefixTable } from "./prefix-table";
import type { Increment } from "./schemas";

/** The rate that applies to a destination: the longest matching prefix of a card. */
export interface RateMatch {
  prefix: string;
  rateMicros: bigint;
  increment: Increment;
  description: string | null;
}

type RateEntry = Omit<RateMatch, "prefix">;
export type CardSide = "sell" | "buy";

export interface RateCard {
  side: CardSide;
  ownerId: string;
  /** rate_card_version of the owner when the card was read. */
  version: number;
  size: number;
  match(destination: string): RateMatch | null;
}

// Cards are cached per owner and keyed by the owner's rate_card_version, which every rate change
// bumps in the same transaction. Another process changing a card bumps the same row, so a reader
// that compares versions (one primary-key read, or free when the caller already holds it) never
// serves a stale card, whichever process made the change.
const MAX_CARDS = 256;
interface CacheState {
  cards: Map<string, RateCard>;
  loading: Map<string, Promise<RateCard | null>>;
}
const CACHE_KEY = Symbol.for("callbook.rate-cards");
function cacheState(): CacheState {
  // On globalThis: separately bundled route modules share one cache per process.
  const g = globalThis as typeof globalThis & { [CACHE_KEY]?: CacheState };
  return (g[CACHE_KEY] ??= { cards: new Map(), loading: new Map() });
}

function buildCard(side: CardSide, ownerId: string, version: number, rows: CardRow[]): RateCard {
  const table = new PrefixTable<RateEntry>(rows.length);
  for (const r of rows) {
    if (r.prefix === null) continue; // the owner row of a LEFT JOIN without rates
    table.add(r.prefix, {
      rateMicros: BigInt(r.rate_micros!),
      increment: { min: r.increment_min!, interval: r.increment_interval! },
      description: r.description,
    });
  }
  return {
    side,
    ownerId,
    version,
    size: table.size,
    match(destination) {
      const m = table.match(destination);
      return m && { prefix: m.prefix, ...m.value };
    },
  };
}

interface CardRow {
  version: number | bigint;
  prefix: string | null;
  rate_micros: bigint | string | null;
  increment_min: number | null;
  increment_interval: number | null;
  description: string | null;
}

/** Reads a whole card with its version in one statement (one snapshot). null when the owner does not exist. */
async function loadCard(db: Executor, side: CardSide, ownerId: string): Promise<RateCard | null> {
  const rows =
    side === "sell"
      ? await queryRows<CardRow>(
          db,
          sql`SELECT g.rate_card_version AS version, r.prefix, r.rate_micros, r.increment_min, r.increment_interval, r.description
              FROM billing_groups g LEFT JOIN sell_rates r ON r.billing_group_id = g.id WHERE g.id = ${ownerId}`,
        )
      : await queryRows<CardRow>(
          db,
          sql`SELECT s.rate_card_version AS version, r.prefix, r.rate_micros, r.increment_min, r.increment_interval, r.description
              FROM suppliers s LEFT JOIN buy_rates r ON r.supplier_id = s.id WHERE s.id = ${ownerId}`,
        );
  if (rows.length === 0) return null;
  return buildCard(side, ownerId, Number(rows[0].version), rows);
}

async function currentVersion(db: Executor, side: CardSide, ownerId: string): Promise<number | null> {
  const rows =
    side === "sell"
      ? await queryRows<{ v: number | bigint }>(db, sql`SELECT rate_card_version AS v FROM billing_groups WHERE id = ${ownerId}`)
      : await queryRows<{ v: number | bigint }>(db, sql`SELECT rate_card_version AS v FROM suppliers WHERE id = ${ownerId}`);
  return rows.length === 0 ? null : Number(rows[0].v);
}

/**
 * The rate card of a billing group ("sell") or supplier ("buy") at `version` or newer, from the
 * cache when it holds that version. Without `version` the current one is read first (cheap).
 * null when the owner does not exist.
 */
export async function getRateCard(db: Executor, side: CardSide, ownerId: string, version?: number | null): Promise<RateCard | null> {
  const wanted = version ?? (await currentVersion(db, side, ownerId));
  if (wanted === null) return null;
  const state = cacheState();
  const key = `${side}:${ownerId}`;
  const cached = state.cards.get(key);
  if (cached && cached.version >= wanted) {
    // Refresh LRU position.
    state.cards.delete(key);
    state.cards.set(key, cached);
    return cached;
  }
  const loadKey = `${key}:${wanted}`;
  let pending = state.loading.get(loadKey);
  if (!pending) {
    pending = loadCard(db, side, ownerId)
      .then((card) => {
        const existing = state.cards.get(key);
        if (card && (!existing || existing.version <= card.version)) {
          state.cards.delete(key);
          state.cards.set(key, card);
          while (state.cards.size > MAX_CARDS) state.cards.delete(state.cards.keys().next().value!);
        }
        return card;
      })
      .finally(() => state.loading.delete(loadKey));
    state.loading.set(loadKey, pending);
  }
  return pending;
}

/**
 * Sell rate of a billing group for a destination (digits, optional leading `+`), longest prefix
 * first. `knownVersion`: the group's rate_card_version if the caller already read it (the API
 * principal carries it), which saves the version query. null: no group or no matching prefix.
 */
export async function findSellRate(db: Executor, billingGroupId: string, destination: string, knownVersion?: number | null): Promise<RateMatch | null> {
  const card = await getRateCard(db, "sell", billingGroupId, knownVersion);
  return card?.match(destination) ?? null;
}

/** Buy rate of a supplier for a destination; same rules as findSellRate. */
export async function findBuyRate(db: Executor, supplierId: string, destination: string, knownVersion?: number | null): Promise<RateMatch | null> {
  const card = await getRateCard(db, "buy", supplierId, knownVersion);
  return card?.match(destination) ?? null;
}

/** Drops every cached card (tests, or after restoring a database underneath a running process). */
export function clearRateCardCache(): void {
  const state = cacheState();
  state.cards.clear();
}
