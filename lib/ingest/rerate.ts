import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@/lib/db/client";
import { getRateCard, type RateCard } from "@/lib/rating/find-rate";
import { applyDebits, rateCall, withRetry, type CallRating } from "./rate-call";

export interface RerateOptions {
  billingGroupId?: string;
  batchSize?: number;
  progress?: (done: number, total: number) => void;
}

export interface RerateResult {
  /** Unrated calls looked at. */
  examined: number;
  /** Calls rated (and debited) by this run. */
  rated: number;
  /** Calls (of the group, if given) still without a sell rate after the run. */
  stillUnrated: number;
  /** Sum debited, micros. */
  debitedMicros: bigint;
}

interface Candidate {
  id: string;
  billing_group_id: string;
  supplier_id: string | null;
  to_number: string;
  /** epoch microseconds, as text (exact) */
  answer_us: string | null;
  end_us: string;
}

/**
 * Rates stored unrated calls (no sell rate when they arrived) through the same rating and debit
 * path as ingest, in batches. Exactly once even when two runs overlap: each batch locks its calls
 * with SKIP LOCKED and updates only those still unrated, and the ledger refuses a second debit of
 * a call (unique call_id).
 */
export async function rerateUnratedCalls(db: Db, options: RerateOptions = {}): Promise<RerateResult> {
  const batchSize = options.batchSize ?? 1000;
  const groupFilter = options.billingGroupId ? sql`AND billing_group_id = ${options.billingGroupId}` : sql``;
  const [{ n: total }] = await queryRows<{ n: bigint | number }>(db, sql`SELECT count(*)::bigint AS n FROM calls WHERE NOT rated ${groupFilter}`);
  const result: RerateResult = { examined: 0, rated: 0, stillUnrated: 0, debitedMicros: 0n };
  let lastId = 0n;
  for (;;) {
    const candidates = await queryRows<Candidate>(
      db,
      sql`SELECT id::text AS id, billing_group_id, supplier_id, to_number,
            (extract(epoch FROM answer_time) * 1000000)::bigint::text AS answer_us, (extract(epoch FROM end_time) * 1000000)::bigint::text AS end_us
          FROM calls
          WHERE NOT rated ${groupFilter} AND id > ${lastId.toString()}::bigint ORDER BY id LIMIT ${batchSize}`,
    );
    if (candidates.length === 0) break;
    lastId = BigInt(candidates[candidates.length - 1].id);
    result.examined += candidates.length;

    // Cards are read before the transaction (PGlite runs one statement stream at a time).
    const sellCards = new Map<string, RateCard | null>();
    const buyCards = new Map<string, RateCard | null>();
    for (const c of candidates) {
      if (!sellCards.has(c.billing_group_id)) sellCards.set(c.billing_group_id, await getRateCard(db, "sell", c.billing_group_id));
      if (c.supplier_id && !buyCards.has(c.supplier_id)) buyCards.set(c.supplier_id, await getRateCard(db, "buy", c.supplier_id));
    }
    const ratings = new Map<string, CallRating>();
    for (const c of candidates) {
      const rating = rateCall(
        c.to_number,
        c.answer_us === null ? null : Number(c.answer_us),
        Number(c.end_us),
        sellCards.get(c.billing_group_id) ?? null,
        c.supplier_id ? (buyCards.get(c.supplier_id) ?? null) : null,
      );
      if (rating.rated) ratings.set(String(c.id), rating);
    }
    if (ratings.size > 0) {
      const batch = await withRetry(() =>
        db.transaction(async (tx) => {
          const json = JSON.stringify(
            [...ratings].map(([id, r]) => ({
              id,
              bill: r.billDuration,
              prefix: r.matchedPrefix,
              rate: r.sellRateMicros?.toString(),
              imin: r.incrementMin,
              iint: r.incrementInterval,
              price: r.priceMicros.toString(),
              brate: r.buyRateMicros?.toString() ?? null,
              bbill: r.buyBillDuration,
              bcost: r.buyCostMicros?.toString() ?? null,
            })),
          );
          const updated = await queryRows<{ id: string; billing_group_id: string; price_micros: string; to_number: string }>(
            tx,
            sql`WITH mine AS (
                  SELECT id FROM calls WHERE id IN (SELECT (x.id)::bigint FROM json_to_recordset(${json}::json) AS x(id text))
                    AND NOT rated ORDER BY id FOR UPDATE SKIP LOCKED
                )
                UPDATE calls SET rated = true, bill_duration = x.bill, matched_prefix = x.prefix, sell_rate_micros = x.rate,
                  increment_min = x.imin, increment_interval = x.iint, price_micros = x.price,
                  buy_rate_micros = x.brate, buy_bill_duration = x.bbill, buy_cost_micros = x.bcost
                FROM json_to_recordset(${json}::json) AS x(id bigint, bill integer, prefix text, rate bigint, imin integer,
                  iint integer, price bigint, brate bigint, bbill integer, bcost bigint)
                WHERE calls.id = x.id AND calls.id IN (SELECT id FROM mine) AND NOT calls.rated
                RETURNING calls.id::text AS id, calls.billing_group_id, calls.price_micros::text AS price_micros, calls.to_number`,
          );
          await applyDebits(
            tx,
            updated.map((u) => ({
              billingGroupId: u.billing_group_id,
              callId: BigInt(u.id),
              amountMicros: BigInt(u.price_micros),
              description: `Call to ${u.to_number} (rerated)`,
            })),
          );
          return updated;
        }),
      );
      result.rated += batch.length;
      for (const u of batch) result.debitedMicros += BigInt(u.price_micros);
    }
    options.progress?.(result.examined, Number(total));
  }
  // Counted, not derived: a concurrent run may have rated some of what this one examined.
  const [{ n: left }] = await queryRows<{ n: bigint | number }>(db, sql`SELECT count(*)::bigint AS n FROM calls WHERE NOT rated ${groupFilter}`);
  result.stillUnrated = Number(left);
  return result;
}
