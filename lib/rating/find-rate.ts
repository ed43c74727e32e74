import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import type { RateFees } from "@/lib/money/charge";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { RateCardBuilder, type RateColumns, type RateMatch } from "./rate-card";

export type { RateMatch };
export type CardSide = "sell" | "buy";

/** One dated deck of an owner: the card in force from `effectiveFrom` until the next deck's. */
export interface DeckRef {
  id: number;
  /** epoch milliseconds */
  effectiveFromMs: number;
  /** Cache key of its card (built once, not per lookup). */
  key: string;
}

export interface RateCard {
  side: CardSide;
  ownerId: string;
  deckId: number;
  effectiveFrom: Date;
  size: number;
  match(destination: string): RateMatch | null;
  /** Every rate of the deck, in load order. */
  entries(): Iterable<RateMatch>;
}

/** The decks of an owner, oldest first, as of the owner's rate_card_version. */
export interface DeckIndex {
  side: CardSide;
  ownerId: string;
  version: number;
  decks: DeckRef[];
}

/** The deck in force at `atMs` (epoch ms): the one with the greatest effective-from <= atMs. */
export function deckAt(index: DeckIndex, atMs: number): DeckRef | null {
  const decks = index.decks;
  let lo = 0;
  let hi = decks.length - 1;
  let found: DeckRef | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (decks[mid].effectiveFromMs <= atMs) {
      found = decks[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

// Two caches. Deck indexes are per owner and keyed by the owner's rate_card_version, which every
// import bumps in the same transaction: a reader that compares versions (one primary-key read, or
// free when the caller already holds it) never misses a deck, whichever process imported it.
// Deck cards are keyed by owner and deck id: a deck is never changed once written, so a cached card is never
// stale (the owner id, random, keeps two databases used by one process apart: deck ids repeat across them).
// Cards are bounded by count and by prefixes held (~40 bytes each, typed arrays: lib/rating/rate-card.ts): a
// few huge decks must not exhaust memory.
const MAX_CARDS = 256;
const MAX_PREFIXES = 4_000_000;
const MAX_INDEXES = 100_000;
interface CacheState {
  indexes: Map<string, DeckIndex>;
  cards: Map<string, RateCard>;
  loading: Map<string, Promise<unknown>>;
}
/** One cache per process: separately bundled route modules share it. */
const cacheState = () =>
  processSingleton("rate-decks", (): CacheState => ({ indexes: new Map(), cards: new Map(), loading: new Map() }));

/** Runs `load` once per key at a time: concurrent callers share the promise. */
function once<T>(state: CacheState, key: string, load: () => Promise<T>): Promise<T> {
  const pending = state.loading.get(key) as Promise<T> | undefined;
  if (pending) return pending;
  const started = load().finally(() => state.loading.delete(key));
  state.loading.set(key, started);
  return started;
}

/** One rate of a deck: [prefix, rate micros, increment min, increment interval, description, connect fee, min charge]. */
export type CardTuple = [string, string, number, number, string | null, string | null, string | null];

function cardOf(side: CardSide, ownerId: string, deckId: number, effectiveFrom: Date, columns: RateColumns): RateCard {
  return {
    side,
    ownerId,
    deckId,
    effectiveFrom,
    size: columns.size,
    match: (destination) => columns.match(destination),
    entries: () => columns.entries(),
  };
}

/** A card of rates held in memory (a deck not stored yet, e.g. a dry-run import). */
export function buildCard(
  side: CardSide,
  ownerId: string,
  deckId: number,
  effectiveFrom: Date,
  tuples: CardTuple[],
): RateCard {
  const builder = new RateCardBuilder(tuples.length);
  const micros = (text: string | null) => (text === null ? null : BigInt(text));
  for (const [prefix, rate, min, interval, description, connectFee, minCharge] of tuples) {
    builder.add(prefix, BigInt(rate), min, interval, description, micros(connectFee), micros(minCharge));
  }
  return cardOf(side, ownerId, deckId, effectiveFrom, builder.build());
}

/** The fees of a matched rate, as the charge arithmetic (lib/money/charge.ts) takes them. */
export function feesOf(match: RateMatch): RateFees {
  return { connectFeeMicros: match.connectFeeMicros, minChargeMicros: match.minChargeMicros };
}

/** The tables of a side: its rates, its owners, and the owner column of rate_decks and the rates. */
export const ratesTable = (side: CardSide) => (side === "sell" ? sql`sell_rates` : sql`buy_rates`);
export const ownerTable = (side: CardSide) => (side === "sell" ? sql`billing_groups` : sql`suppliers`);
export const ownerColumn = (side: CardSide) => (side === "sell" ? sql`billing_group_id` : sql`supplier_id`);

/** Rows per statement when a deck loads (tests lower it to cross chunk boundaries with a few rates). */
export const cardLoading = { chunkRows: 50_000 };

/**
 * Reads a deck in chunks of cardLoading.chunkRows rates (keyset on the prefix), each chunk one text of compact
 * records the card builder parses in place: neither the driver nor JSON.parse ever makes an object
 * per rate, and the whole deck is never one value, in this process or in PGlite's WebAssembly heap
 * (which never shrinks once grown). Descriptions come as a JSON array, only for chunks that have any.
 * null when the deck does not exist (its owner was deleted), also when that happens while it loads.
 */
async function loadCard(db: Executor, side: CardSide, ownerId: string, deckId: number): Promise<RateCard | null> {
  const heads = await queryRows<{ owner: string; from_ms: string; rates: number | bigint }>(
    db,
    sql`SELECT d.${ownerColumn(side)} AS owner, (extract(epoch FROM d.effective_from) * 1000)::bigint::text AS from_ms,
          (SELECT count(*) FROM ${ratesTable(side)} r WHERE r.deck_id = d.id) AS rates
        FROM rate_decks d WHERE d.id = ${deckId} AND d.${ownerColumn(side)} = ${ownerId}`,
  );
  if (heads.length === 0) return null;
  const expected = Number(heads[0].rates);
  const builder = new RateCardBuilder(expected);
  let after = "";
  while (builder.size < expected) {
    const [chunk] = await queryRows<{ records: string | null; descriptions: string | null }>(
      db,
      sql`SELECT string_agg(r.prefix || ',' || r.rate_micros || ',' || r.increment_min || ',' || r.increment_interval || ','
                   || coalesce(r.connect_fee_micros::text, '') || ',' || coalesce(r.min_charge_micros::text, ''), chr(10) ORDER BY r.prefix) AS records,
            CASE WHEN count(r.description) > 0 THEN json_agg(r.description ORDER BY r.prefix)::text END AS descriptions
          FROM (SELECT prefix, rate_micros, increment_min, increment_interval, description, connect_fee_micros, min_charge_micros
                  FROM ${ratesTable(side)} WHERE deck_id = ${deckId} AND prefix > ${after} ORDER BY prefix LIMIT ${cardLoading.chunkRows}) r`,
    );
    if (!chunk?.records) break;
    const descriptions = chunk.descriptions === null ? null : (JSON.parse(chunk.descriptions) as (string | null)[]);
    after = builder.addRecords(chunk.records, descriptions)!;
  }
  if (builder.size !== expected) return null; // the deck went away while it loaded
  return cardOf(side, heads[0].owner, deckId, new Date(Number(heads[0].from_ms)), builder.build());
}

/** The owner's version and decks in one statement (one snapshot). null when the owner does not exist. */
async function loadIndex(db: Executor, side: CardSide, ownerId: string): Promise<DeckIndex | null> {
  const rows = await queryRows<{ version: number | bigint; decks: string | null }>(
    db,
    sql`SELECT o.rate_card_version AS version,
          (SELECT json_agg(json_build_array(d.id, (extract(epoch FROM d.effective_from) * 1000)::bigint) ORDER BY d.effective_from)::text
             FROM rate_decks d WHERE d.${ownerColumn(side)} = o.id) AS decks
        FROM ${ownerTable(side)} o WHERE o.id = ${ownerId}`,
  );
  if (rows.length === 0) return null;
  const decks = rows[0].decks === null ? [] : (JSON.parse(rows[0].decks) as [number, number][]);
  return {
    side,
    ownerId,
    version: Number(rows[0].version),
    decks: decks.map(([id, from]) => ({
      id: Number(id),
      effectiveFromMs: Number(from),
      key: cardKey(side, ownerId, Number(id)),
    })),
  };
}

async function currentVersion(db: Executor, side: CardSide, ownerId: string): Promise<number | null> {
  const rows = await queryRows<{ v: number | bigint }>(
    db,
    sql`SELECT rate_card_version AS v FROM ${ownerTable(side)} WHERE id = ${ownerId}`,
  );
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
 * The decks of a billing group ("sell") or supplier ("buy") at `version` or newer, from the cache
 * when it holds that version. Without `version` the current one is read first (cheap).
 * null when the owner does not exist.
 */
export async function getDeckIndex(
  db: Executor,
  side: CardSide,
  ownerId: string,
  version?: number | null,
): Promise<DeckIndex | null> {
  const wanted = version ?? (await currentVersion(db, side, ownerId));
  if (wanted === null) return null;
  const state = cacheState();
  const key = `${side}:${ownerId}`;
  const cached = state.indexes.get(key);
  if (cached && cached.version >= wanted) return cached;
  return once(state, `${key}:${wanted}`, async () => {
    const index = await loadIndex(db, side, ownerId);
    const existing = state.indexes.get(key);
    if (index && (!existing || existing.version <= index.version)) {
      if (state.indexes.size >= MAX_INDEXES) state.indexes.clear();
      state.indexes.set(key, index);
    }
    return index;
  });
}

const cardKey = (side: CardSide, ownerId: string, deckId: number) => `${side}:${ownerId}:${deckId}`;

function cachedCard(state: CacheState, key: string): RateCard | undefined {
  const cached = state.cards.get(key);
  if (cached) {
    // Refresh LRU position.
    state.cards.delete(key);
    state.cards.set(key, cached);
  }
  return cached;
}

/** The card of one deck of an owner, cached. null when the deck no longer exists. */
export async function getDeckCard(
  db: Executor,
  side: CardSide,
  ownerId: string,
  deckId: number,
): Promise<RateCard | null> {
  const state = cacheState();
  const key = cardKey(side, ownerId, deckId);
  const cached = cachedCard(state, key);
  if (cached) return cached;
  return once(state, `deck:${key}`, async () => {
    const card = await loadCard(db, side, ownerId, deckId);
    if (card) {
      state.cards.set(key, card);
      evict(state);
    }
    return card;
  });
}

/**
 * The rate card of a billing group ("sell") or supplier ("buy") in force at `atMs` (epoch ms,
 * default now): its deck with the greatest effective-from <= atMs. `version`: the owner's
 * rate_card_version if the caller already read it. null when the owner does not exist or has no
 * deck in force then.
 */
export async function getRateCard(
  db: Executor,
  side: CardSide,
  ownerId: string,
  version?: number | null,
  atMs: number = Date.now(),
): Promise<RateCard | null> {
  // The hot path (the API principal knows the version, deck index and card are cached): no await.
  if (version !== undefined && version !== null) {
    const state = cacheState();
    const index = state.indexes.get(`${side}:${ownerId}`);
    if (index && index.version >= version) {
      const deck = deckAt(index, atMs);
      if (!deck) return null;
      const card = cachedCard(state, deck.key);
      if (card) return card;
    }
  }
  const index = await getDeckIndex(db, side, ownerId, version);
  const deck = index && deckAt(index, atMs);
  return deck ? getDeckCard(db, side, ownerId, deck.id) : null;
}

/**
 * The cards of one owner for a set of instants, loaded before a transaction so that rating inside
 * it is synchronous: `at(ms)` answers the card in force at that instant (null: none).
 */
export interface DatedCards {
  at(atMs: number): RateCard | null;
}

export async function loadDatedCards(
  db: Executor,
  side: CardSide,
  ownerId: string,
  version: number | null | undefined,
  instantsMs: Iterable<number>,
): Promise<DatedCards> {
  const index = await getDeckIndex(db, side, ownerId, version);
  const cards = new Map<number, RateCard | null>();
  if (index) {
    for (const t of instantsMs) {
      const deck = deckAt(index, t);
      if (deck && !cards.has(deck.id)) cards.set(deck.id, await getDeckCard(db, side, ownerId, deck.id));
    }
  }
  return {
    at(atMs) {
      const deck = index && deckAt(index, atMs);
      return deck ? (cards.get(deck.id) ?? null) : null;
    },
  };
}

/**
 * Sell rate of a billing group for a destination (digits, optional leading `+`), longest prefix
 * first, in the deck in force now. `knownVersion`: the group's rate_card_version if the caller already
 * read it (the API principal carries it), which saves the version query. null: no group or no matching prefix.
 */
export async function findSellRate(
  db: Executor,
  billingGroupId: string,
  destination: string,
  knownVersion?: number | null,
): Promise<RateMatch | null> {
  const card = await getRateCard(db, "sell", billingGroupId, knownVersion);
  return card?.match(destination) ?? null;
}

/** Buy rate of a supplier for a destination; same rules as findSellRate. */
export async function findBuyRate(
  db: Executor,
  supplierId: string,
  destination: string,
  knownVersion?: number | null,
): Promise<RateMatch | null> {
  const card = await getRateCard(db, "buy", supplierId, knownVersion);
  return card?.match(destination) ?? null;
}

/** Drops every cached deck and card (tests, or after restoring a database underneath a running process). */
export function clearRateCardCache(): void {
  const state = cacheState();
  state.indexes.clear();
  state.cards.clear();
}
