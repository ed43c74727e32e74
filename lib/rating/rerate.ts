import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { formatMicros } from "@/lib/money/micros";
import { withRetry } from "@/lib/db/errors";
import { noteCallsWritten } from "@/lib/db/planner-statistics";
import { loadDatedCards, type DatedCards } from "./find-rate";
import { moveBalances, type LedgerEntry } from "@/lib/billing/ledger";
import { callColumnSet } from "@/lib/calls/stored-call";
import { CALL_RATING_KEYS, rateCall, type CallRating } from "./rate-call";
import {
  ancestorChain,
  loadAccountTree,
  rateTiers,
  sameTierCharge,
  storedTierCharge,
  TIER_RECORDSET,
  TIER_SELECT,
  tierRecord,
  type TierCharge,
  type TierRow,
} from "./tier-charges";

export interface RerateOptions {
  billingGroupId?: string;
  /**
   * Also re-rate calls already rated that started at or after this instant, each with the decks in
   * force at its start; a changed price moves the balance by the exact difference (an 'adjustment'
   * ledger entry per call). Without it only unrated calls are rated.
   */
  since?: Date;
  batchSize?: number;
  progress?: (done: number, total: number) => void;
}

export interface RerateResult {
  /** Calls looked at: the unrated ones, or with `since` every call started since then. */
  examined: number;
  /** Unrated calls rated (and debited) by this run. */
  rated: number;
  /** Calls (of the group, if given) still without a sell rate after the run. */
  stillUnrated: number;
  /** Sum debited for newly rated calls, micros. */
  debitedMicros: bigint;
  /** With `since`: rated calls whose rating changed (price, rate, deck or buy side). */
  rerated: number;
  /** With `since`: sum of (new price - old price) over those calls, micros; the balance moved by minus this. */
  adjustedMicros: bigint;
  /** With `since`: rated calls no deck in force at their start prices; left as they were. */
  unmatched: number;
  /** Tier charges (docs/contract.md "Reseller tiers") rated now that were unrated (or missing), and debited. */
  tiersRated: number;
  /** With `since`: rated tier charges whose rating changed; each tier's balance moved by its difference. */
  tiersRerated: number;
}

/**
 * A re-rating with `since` that did not look at every call in its scope: the batches it committed hold (balance =
 * ledger), but some calls may still carry the old price. Never reported as success (the CLI exits non-zero).
 */
export class RerateIncompleteError extends Error {
  constructor(
    readonly result: RerateResult,
    /** Calls in scope (of the group) when the run began. */
    readonly inScope: number,
    /** Of those, calls the run did not re-rate. */
    readonly missed: number,
  ) {
    super(
      `re-rating did not finish: ${missed} of the ${inScope} calls in scope were not re-rated (${result.rerated} were, with their balance adjustments); run it again`,
    );
  }
}

interface Candidate {
  id: string;
  billing_group_id: string;
  supplier_id: string | null;
  to_number: string;
  /** epoch milliseconds / microseconds, as text (exact) */
  start_ms: string;
  answer_us: string | null;
  end_us: string;
}

const RATING = callColumnSet(CALL_RATING_KEYS);

/** A candidate's new rating, with its call's key: group and start time (ISO, milliseconds as stored). */
interface KeyedRating {
  g: string;
  s: string;
  rating: CallRating;
  /** The call's tier charges, its account's parent first (none for a root account's call). */
  tiers: TierCharge[];
}

/** A call as applyRatings reads it under its lock; the rating columns are RATING.select. */
interface StoredRating {
  id: string;
  billing_group_id: string;
  to_number: string;
}

/**
 * Rates stored unrated calls (no sell rate when they arrived) and, with `since`, re-rates the rated
 * calls started since then, through the same rating path as ingest (the decks in force at each
 * call's start), in batches. Exactly once even when two runs overlap: each batch locks its calls and
 * compares against what is stored under the lock; the ledger refuses a second debit of a call.
 * Balance = ledger (docs/contract.md §1) holds after every batch: each price change is one ledger
 * entry and the same amount on the balance, in one transaction.
 */
export async function rerateCalls(db: Db, options: RerateOptions = {}): Promise<RerateResult> {
  const batchSize = options.batchSize ?? 1000;
  const groupFilter = options.billingGroupId ? sql`AND calls.billing_group_id = ${options.billingGroupId}` : sql``;
  // Without `since`: the unrated calls, and the calls a tier above their account could not rate (a hashed subplan).
  const scope: SQL = options.since
    ? sql`calls.start_time >= ${options.since.toISOString()}::timestamptz`
    : sql`(NOT calls.rated OR (calls.billing_group_id, calls.start_time, calls.id) IN (
          SELECT billing_group_id, start_time, call_id FROM call_tier_charges WHERE NOT rated))`;
  const [{ n: total }] = await queryRows<{ n: bigint | number }>(
    db,
    sql`SELECT count(*)::bigint AS n FROM calls WHERE ${scope} ${groupFilter}`,
  );
  const result: RerateResult = {
    examined: 0,
    rated: 0,
    stillUnrated: 0,
    debitedMicros: 0n,
    rerated: 0,
    adjustedMicros: 0n,
    unmatched: 0,
    tiersRated: 0,
    tiersRerated: 0,
  };
  let notFound = 0;
  // Batches walk the primary key (group, start, id): unique by constraint and a total order over every partition,
  // the default one included, so each call in scope is read exactly once. Every column is qualified: the select
  // list's "id" is the id as text, and an unqualified ORDER BY id sorts by that ("1000" < "999"), which skipped calls.
  let after: SQL = sql``;
  for (;;) {
    const candidates = await queryRows<Candidate>(
      db,
      sql`SELECT calls.id::text AS id, calls.billing_group_id, calls.supplier_id, calls.to_number,
            (extract(epoch FROM calls.start_time) * 1000)::bigint::text AS start_ms,
            (extract(epoch FROM calls.answer_time) * 1000000)::bigint::text AS answer_us,
            (extract(epoch FROM calls.end_time) * 1000000)::bigint::text AS end_us
          FROM calls
          WHERE ${scope} ${groupFilter} ${after}
          ORDER BY calls.billing_group_id, calls.start_time, calls.id LIMIT ${batchSize}`,
    );
    if (candidates.length === 0) break;
    const last = candidates[candidates.length - 1];
    after = sql`AND (calls.billing_group_id, calls.start_time, calls.id) > (${last.billing_group_id}, ${new Date(Number(last.start_ms)).toISOString()}::timestamptz, ${last.id}::bigint)`;
    result.examined += candidates.length;

    // Cards are read before the transaction (PGlite runs one statement stream at a time).
    const startsMs = new Set(candidates.map((c) => Number(c.start_ms)));
    const sellCards = new Map<string, DatedCards>();
    const buyCards = new Map<string, DatedCards>();
    for (const c of candidates) {
      if (!sellCards.has(c.billing_group_id))
        sellCards.set(c.billing_group_id, await loadDatedCards(db, "sell", c.billing_group_id, null, startsMs));
      if (c.supplier_id && !buyCards.has(c.supplier_id))
        buyCards.set(c.supplier_id, await loadDatedCards(db, "buy", c.supplier_id, null, startsMs));
    }
    // Every tier above the batch's accounts is rated again too, at its own decks.
    const tree = await loadAccountTree(
      db,
      candidates.map((c) => c.billing_group_id),
    );
    for (const [id, node] of tree)
      if (!sellCards.has(id)) sellCards.set(id, await loadDatedCards(db, "sell", id, node.version, startsMs));
    const ratings = new Map<string, KeyedRating>();
    for (const c of candidates) {
      const startMs = Number(c.start_ms);
      const answerUs = c.answer_us === null ? null : Number(c.answer_us);
      ratings.set(c.id, {
        // The call's primary key (group, start, id): the batch's lock and update each hit one partition.
        g: c.billing_group_id,
        s: new Date(startMs).toISOString(),
        rating: rateCall(
          c.to_number,
          answerUs,
          Number(c.end_us),
          sellCards.get(c.billing_group_id)?.at(startMs) ?? null,
          c.supplier_id ? (buyCards.get(c.supplier_id)?.at(startMs) ?? null) : null,
        ),
        tiers: rateTiers(
          ancestorChain(tree, c.billing_group_id),
          c.to_number,
          answerUs,
          Number(c.end_us),
          (id) => sellCards.get(id)?.at(startMs) ?? null,
        ),
      });
    }
    const batch = await withRetry(() => db.transaction((tx) => applyRatings(tx, ratings, options.since !== undefined)));
    result.rated += batch.rated;
    result.debitedMicros += batch.debitedMicros;
    result.rerated += batch.rerated;
    result.adjustedMicros += batch.adjustedMicros;
    result.unmatched += batch.unmatched;
    result.tiersRated += batch.tiersRated;
    result.tiersRerated += batch.tiersRerated;
    noteCallsWritten(db, batch.rated + batch.rerated);
    notFound += batch.notFound;
    options.progress?.(result.examined, Number(total));
  }
  // Counted, not derived: a concurrent run may have rated some of what this one examined.
  const [{ n: left }] = await queryRows<{ n: bigint | number }>(
    db,
    sql`SELECT count(*)::bigint AS n FROM calls WHERE NOT rated ${groupFilter}`,
  );
  result.stillUnrated = Number(left);
  // A call in scope not examined (or gone before its batch locked it) may still carry its old price: say so. With
  // `since` the scope only grows while a run goes (start times never change, calls are never deleted); without it a
  // concurrent run may rate calls first, which stillUnrated reports.
  const missed = notFound + (options.since ? Math.max(0, Number(total) - result.examined) : 0);
  if (missed > 0) throw new RerateIncompleteError(result, Number(total), missed);
  return result;
}

/** The default `rerate`: rates the unrated calls only. */
export function rerateUnratedCalls(db: Db, options: Omit<RerateOptions, "since"> = {}): Promise<RerateResult> {
  return rerateCalls(db, { ...options, since: undefined });
}

/**
 * Writes the ratings that change something, under row locks taken in id order: an unrated call
 * that now has a rate is debited; with `rerateRated`, a rated call whose rating changed gets an
 * 'adjustment' entry of (old price - new price). A rated call no deck prices any more is left alone.
 */
async function applyRatings(tx: Executor, ratings: Map<string, KeyedRating>, rerateRated: boolean) {
  const out = {
    rated: 0,
    debitedMicros: 0n,
    rerated: 0,
    adjustedMicros: 0n,
    unmatched: 0,
    notFound: 0,
    tiersRated: 0,
    tiersRerated: 0,
  };
  const keys = JSON.stringify([...ratings].map(([id, k]) => ({ g: k.g, s: k.s, id })));
  const stored = await queryRows<StoredRating & Record<string, unknown>>(
    tx,
    sql`SELECT calls.id::text AS id, calls.billing_group_id, calls.to_number, ${RATING.select}
        FROM json_to_recordset(${keys}::json) AS x(g text, s timestamptz, id bigint)
        JOIN calls ON calls.billing_group_id = x.g AND calls.start_time = x.s AND calls.id = x.id
        ORDER BY calls.id FOR UPDATE OF calls`,
  );
  out.notFound = ratings.size - stored.length;
  const storedTiers = await storedTierChargesOf(
    tx,
    stored.filter((row) => ratings.get(row.id)!.tiers.length > 0).map((row) => [row.id, ratings.get(row.id)!]),
  );
  const tierWrites: Record<string, unknown>[] = [];
  const updates: [string, KeyedRating][] = [];
  const entries: LedgerEntry[] = [];
  for (const row of stored) {
    const old = { ...row, ...RATING.decode(row) };
    const keyed = ratings.get(old.id)!;
    const next = keyed.rating;
    // Under the call's lock, its tiers: rated independently of the call's own rating.
    entries.push(...tierEntries(old.id, old.to_number, keyed, storedTiers.get(old.id), rerateRated, tierWrites, out));
    if (!next.rated) {
      if (old.rated && rerateRated) out.unmatched++;
      continue;
    }
    if (old.rated && !rerateRated) continue; // rated meanwhile by another run
    if (CALL_RATING_KEYS.every((k) => old[k] === next[k])) continue;
    updates.push([old.id, keyed]);
    const oldPrice = old.rated ? old.priceMicros : 0n;
    const delta = next.priceMicros - oldPrice;
    if (old.rated) {
      out.rerated++;
      out.adjustedMicros += delta;
      if (delta !== 0n) {
        entries.push({
          billingGroupId: old.billing_group_id,
          kind: "adjustment",
          amountMicros: -delta,
          callId: old.id,
          description: `Call to ${old.to_number} re-rated: ${formatMicros(oldPrice)} -> ${formatMicros(next.priceMicros)}`,
        });
      }
    } else {
      out.rated++;
      out.debitedMicros += next.priceMicros;
      if (next.priceMicros > 0n)
        entries.push({
          billingGroupId: old.billing_group_id,
          kind: "debit",
          amountMicros: -next.priceMicros,
          callId: old.id,
          description: `Call to ${old.to_number} (rerated)`,
        });
    }
  }
  if (updates.length > 0) {
    const json = JSON.stringify(updates.map(([id, k]) => ({ id, g: k.g, s: k.s, ...RATING.toRecord(k.rating) })));
    // One statement: the usage rollup triggers (transition tables) move the totals by the exact differences. Keyed by
    // the primary key (group, start, id): one partition per call (and one shard on Citus).
    await tx.execute(sql`UPDATE calls SET ${RATING.set} FROM json_to_recordset(${json}::json) AS x(id bigint, g text, s timestamptz, ${RATING.recordset})
                         WHERE calls.billing_group_id = x.g AND calls.start_time = x.s AND calls.id = x.id`);
  }
  if (tierWrites.length > 0) {
    // Missing rows (calls stored before their tiers were rated) are inserted, changed ones replaced: one statement.
    await tx.execute(sql`INSERT INTO call_tier_charges AS t (billing_group_id, start_time, call_id, tier_group_id, depth, rated, matched_prefix, rate_micros, bill_duration, price_micros, rate_deck_id)
                         SELECT g, s, id, tier, depth, rated, prefix, rate, bill, price, deck
                         FROM json_to_recordset(${JSON.stringify(tierWrites)}::json) AS x(g text, s timestamptz, id bigint, ${TIER_RECORDSET})
                         ORDER BY g, s, id, tier
                         ON CONFLICT ON CONSTRAINT call_tier_charges_pkey DO UPDATE SET depth = EXCLUDED.depth, rated = EXCLUDED.rated,
                           matched_prefix = EXCLUDED.matched_prefix, rate_micros = EXCLUDED.rate_micros, bill_duration = EXCLUDED.bill_duration,
                           price_micros = EXCLUDED.price_micros, rate_deck_id = EXCLUDED.rate_deck_id`);
  }
  if (entries.length === 0) return out;
  // Each group's balance moves by the sum of its entries (minus its price changes), in group id order as ingest's
  // debits (no deadlock cycles); `disabled` follows.
  await moveBalances(tx, entries);
  return out;
}

/** The stored tier charges of locked calls, by call id. */
async function storedTierChargesOf(
  tx: Executor,
  calls: readonly (readonly [string, KeyedRating])[],
): Promise<Map<string, Map<string, TierCharge>>> {
  const byCall = new Map<string, Map<string, TierCharge>>();
  if (calls.length === 0) return byCall;
  const keys = JSON.stringify(calls.map(([id, k]) => ({ g: k.g, s: k.s, id })));
  const rows = await queryRows<TierRow>(
    tx,
    sql`SELECT ${TIER_SELECT} FROM json_to_recordset(${keys}::json) AS x(g text, s timestamptz, id bigint)
        JOIN call_tier_charges t ON t.billing_group_id = x.g AND t.start_time = x.s AND t.call_id = x.id`,
  );
  for (const row of rows) {
    const tiers = byCall.get(row.call_id) ?? new Map<string, TierCharge>();
    tiers.set(row.tier_group_id, storedTierCharge(row));
    byCall.set(row.call_id, tiers);
  }
  return byCall;
}

/**
 * A call's tier charges against the stored ones, by the call's own rules: an unrated (or missing) tier charge that
 * now has a rate is written and debited; with `rerateRated`, a rated one whose rating changed is written with an
 * 'adjustment' of (old price - new price) on the tier's account; a rated one no deck prices any more is left alone.
 * Pushes the rows to write onto `writes`; answers the ledger entries.
 */
function tierEntries(
  callId: string,
  toNumber: string,
  keyed: KeyedRating,
  stored: ReadonlyMap<string, TierCharge> | undefined,
  rerateRated: boolean,
  writes: Record<string, unknown>[],
  out: { tiersRated: number; tiersRerated: number },
): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const next of keyed.tiers) {
    const old = stored?.get(next.tierGroupId);
    if (old && sameTierCharge(old, next)) continue;
    if (!next.rated) {
      // A missing row is written unrated (so the default rerate finds it again); a rated one stays.
      if (!old) writes.push(tierRecord({ g: keyed.g, s: keyed.s, id: callId }, next));
      continue;
    }
    if (old?.rated && !rerateRated) continue;
    writes.push(tierRecord({ g: keyed.g, s: keyed.s, id: callId }, next));
    if (old?.rated) {
      out.tiersRerated++;
      const delta = next.priceMicros - old.priceMicros;
      if (delta !== 0n)
        entries.push({
          billingGroupId: next.tierGroupId,
          kind: "adjustment",
          amountMicros: -delta,
          callId,
          description: `Call to ${toNumber} by ${keyed.g} re-rated: ${formatMicros(old.priceMicros)} -> ${formatMicros(next.priceMicros)}`,
        });
    } else {
      out.tiersRated++;
      if (next.priceMicros > 0n)
        entries.push({
          billingGroupId: next.tierGroupId,
          kind: "debit",
          amountMicros: -next.priceMicros,
          callId,
          description: `Call to ${toNumber} by ${keyed.g} (rerated)`,
        });
    }
  }
  return entries;
}
