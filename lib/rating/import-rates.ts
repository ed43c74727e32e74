import { sql } from "drizzle-orm";
import type { Db, Tx } from "@/lib/db/client";
import { queryRows } from "@/lib/db/client";
import { parseMicros } from "@/lib/money/micros";
import type { RateRow } from "./schemas";
import type { CardSide } from "./find-rate";

export interface RateImportResult {
  /** Billing group id (sell card) or supplier id (buy card). */
  ownerId: string;
  imported: number;
  /** The owner's rate_card_version after the import. */
  rateCardVersion: number;
}

/** The owner of the card does not exist. */
export class RateCardOwnerNotFoundError extends Error {}

const CHUNK = 5_000;

/**
 * Replaces a whole card in one transaction and bumps the owner's rate_card_version, so readers see
 * the old card or the new one, never a mix, and every process's cache notices the change.
 */
async function replaceCard(
  db: Db,
  side: CardSide,
  ownerId: string,
  rows: RateRow[],
  progress?: (done: number, total: number) => void,
): Promise<RateImportResult> {
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.prefix)) throw new RangeError(`prefix ${row.prefix} appears twice`);
    seen.add(row.prefix);
  }
  const records = rows.map((r) => ({
    p: r.prefix,
    r: parseMicros(r.rate).toString(),
    m: r.increment.min,
    i: r.increment.interval,
    d: r.description ?? null,
  }));
  return db.transaction(async (tx: Tx) => {
    // One import per card at a time; concurrent imports of the same card would collide on its keys.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`rate-card:${side}:${ownerId}`}))`);
    const exists =
      side === "sell"
        ? await queryRows(tx, sql`SELECT 1 FROM billing_groups WHERE id = ${ownerId}`)
        : await queryRows(tx, sql`SELECT 1 FROM suppliers WHERE id = ${ownerId}`);
    if (exists.length === 0) throw new RateCardOwnerNotFoundError(`no ${side === "sell" ? "billing group" : "supplier"} ${ownerId}`);
    if (side === "sell") await tx.execute(sql`DELETE FROM sell_rates WHERE billing_group_id = ${ownerId}`);
    else await tx.execute(sql`DELETE FROM buy_rates WHERE supplier_id = ${ownerId}`);
    for (let at = 0; at < records.length; at += CHUNK) {
      const json = JSON.stringify(records.slice(at, at + CHUNK));
      const source = sql`FROM json_to_recordset(${json}::json) AS x(p text, r bigint, m integer, i integer, d text)`;
      if (side === "sell") {
        await tx.execute(sql`INSERT INTO sell_rates (billing_group_id, prefix, rate_micros, increment_min, increment_interval, description)
                             SELECT ${ownerId}, x.p, x.r, x.m, x.i, x.d ${source}`);
      } else {
        await tx.execute(sql`INSERT INTO buy_rates (supplier_id, prefix, rate_micros, increment_min, increment_interval, description)
                             SELECT ${ownerId}, x.p, x.r, x.m, x.i, x.d ${source}`);
      }
      progress?.(Math.min(at + CHUNK, records.length), records.length);
    }
    // Last, so the owner row (which ingest also updates) stays locked only for a moment.
    const [bumped] =
      side === "sell"
        ? await queryRows<{ v: number | bigint }>(
            tx,
            sql`UPDATE billing_groups SET rate_card_version = rate_card_version + 1 WHERE id = ${ownerId} RETURNING rate_card_version AS v`,
          )
        : await queryRows<{ v: number | bigint }>(
            tx,
            sql`UPDATE suppliers SET rate_card_version = rate_card_version + 1 WHERE id = ${ownerId} RETURNING rate_card_version AS v`,
          );
    return { ownerId, imported: records.length, rateCardVersion: Number(bumped.v) };
  });
}

/** Replaces the sell rate card of a billing group. */
export function importSellRates(db: Db, billingGroupId: string, rows: RateRow[], progress?: (done: number, total: number) => void) {
  return replaceCard(db, "sell", billingGroupId, rows, progress);
}

/** Replaces the buy rate card of a supplier. */
export function importBuyRates(db: Db, supplierId: string, rows: RateRow[], progress?: (done: number, total: number) => void) {
  return replaceCard(db, "buy", supplierId, rows, progress);
}
