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
// Bounded by cards and by prefixes held (~50 bytes each): a few huge decks must not exhaust memory.
const MAX_CARDS = 256;
const MAX_PREFIXES = 4_000_000;
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

/** One rate of a card as loaded: [prefix, rate micros (text), increment min, increment interval, description]. */
type CardTuple = [string, string, number, number, string | null];

function buildCard(side: CardSide, ownerId: string, version: number, tuples: CardTuple[]): RateCard {
  const table = new PrefixTable<RateEntry>(tuples.length);
  // Cards repeat a handful of increments: share the objects.
  const increments = new Map<string, Increment>();
  for (const [prefix, rate, min, interval, description] of tuples) {
    const key = `${min}/${interval}`;
    let increment = increments.get(key);
    if (!increment) increments.set(key, (increment = { min, interval }));
    table.add(prefix, { rateMicros: BigInt(rate), increment, description });
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

/**
 * Reads a whole card with its version in one statement (one snapshot), as one JSON text: a single
 * value parsed natively is several times faster than 500k row objects through the driver.
 * null when the owner does not exist.
 */
async function loadCard(db: Executor, side: CardSide, ownerId: string): Promise<RateCard | null> {
  const rows =
    side === "sell"
      ? await queryRows<{ version: number | bigint; rates: string | null }>(
          db,
          sql`SELECT g.rate_card_version AS version,
                (SELECT json_agg(json_build_array(r.prefix, r.rate_micros::text, r.increment_min, r.increment_interval, r.description))::text
                   FROM sell_rates r WHERE r.billing_group_id = g.id) AS rates
              FROM billing_groups g WHERE g.id = ${ownerId}`,
        )
      : await queryRows<{ version: number | bigint; rates: string | null }>(
          db,
          sql`SELECT s.rate_card_version AS version,
                (SELECT json_agg(json_build_array(r.prefix, r.rate_micros::text, r.increment_min, r.increment_interval, r.description))::text
                   FROM buy_rates r WHERE r.supplier_id = s.id) AS rates
              FROM suppliers s WHERE s.id = ${ownerId}`,
        );
  if (rows.length === 0) return null;
  const tuples = rows[0].rates === null ? [] : (JSON.parse(rows[0].rates) as CardTuple[]);
  return buildCard(side, ownerId, Number(rows[0].version), tuples);
}

async function currentVersion(db: Executor, side: CardSide, ownerId: string): Promise<number | null> {
  const rows =
    side === "sell"
      ? await queryRows<{ v: number | bigint }>(db, sql`SELECT rate_card_version AS v FROM billing_groups WHERE id = ${ownerId}`)
      : await queryRows<{ v: number | bigint }>(db, sql`SELECT rate_card_version AS v FROM suppliers WHERE id = ${ownerId}`);
  return rows.length === 0 ? null : Number(rows[0].v);
}

/** Drops least recently used cards beyond the bounds (never the one just added). */
function evict(state: CacheState): void {
  let prefixes = 0;
  for (const card of state.cards.values()) prefixes += card.size;
  for (const [key, card] of state.cards) {
    if (state.cards.size <= 1 || (state.cards.size <= MAX_CARDS && prefixes <= MAX_PREFIXES)) break;
    state.cards.delete(key);
    prefixes -= card.size;
  }
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
          evict(state);
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
