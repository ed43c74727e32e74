import { sql } from "drizzle-orm";
import { isPlatform, reachOf, reaches, type Reach } from "@/lib/auth/reach";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { csvField, streamPagedCsv } from "@/lib/http/csv";
import { formatMicros } from "@/lib/money/micros";
import { ownerColumn, ownerTable, type CardSide } from "./find-rate";

/** The columns `rates import` reads, so a downloaded deck imports again as it is. */
const HEADER = ["prefix", "rate", "increment", "description", "connectFee", "minCharge"] as const;
const PAGE = 5_000;
const PLATFORM_REACH = reachOf({ billingGroupId: null });

export interface DeckFile {
  body: ReadableStream<Uint8Array>;
  filename: string;
}

interface RateLine {
  prefix: string;
  rate_micros: string;
  increment_min: number;
  increment_interval: number;
  description: string | null;
  connect_fee_micros: string | null;
  min_charge_micros: string | null;
}

const fee = (micros: string | null) => (micros === null ? "" : formatMicros(BigInt(micros)));

/**
 * A deck as CSV (GET /v1/rate-decks/{id}), streamed by prefix pages; 404 for an unknown id, and for a deck the reach
 * does not read: a bound caller (a reseller) reads the sell decks of its own account and its subtree only, never a
 * supplier's (docs/contract.md "Reseller tiers").
 */
export async function deckCsv(db: Executor, deckId: string, reach: Reach = PLATFORM_REACH): Promise<DeckFile> {
  if (!/^\d{1,18}$/.test(deckId))
    throw new ApiError("not_found", `No rate deck ${JSON.stringify(deckId.slice(0, 64))}.`);
  const [deck] = await queryRows<{ side: CardSide; owner: string; from_ms: string }>(
    db,
    sql`SELECT CASE WHEN billing_group_id IS NULL THEN 'buy' ELSE 'sell' END AS side,
          coalesce(billing_group_id, supplier_id) AS owner, (extract(epoch FROM effective_from) * 1000)::bigint::text AS from_ms
        FROM rate_decks WHERE id = ${deckId}::bigint`,
  );
  if (!deck || (!isPlatform(reach) && (deck.side !== "sell" || !reaches(reach, deck.owner))))
    throw new ApiError("not_found", `No rate deck ${JSON.stringify(deckId)}.`);
  const table = deck.side === "sell" ? sql`sell_rates` : sql`buy_rates`;
  const body = await streamPagedCsv(
    HEADER,
    async (after) => {
      const rows = await queryRows<RateLine>(
        db,
        sql`SELECT prefix, rate_micros::text AS rate_micros, increment_min, increment_interval, description,
              connect_fee_micros::text AS connect_fee_micros, min_charge_micros::text AS min_charge_micros
            FROM ${table} WHERE deck_id = ${deckId}::bigint AND prefix > ${after ?? ""} ORDER BY prefix LIMIT ${PAGE}`,
      );
      return { rows, nextCursor: rows.length === PAGE ? rows[rows.length - 1].prefix : undefined };
    },
    (page) =>
      page.rows
        .map(
          (r) =>
            [
              r.prefix,
              formatMicros(BigInt(r.rate_micros)),
              `${r.increment_min}/${r.increment_interval}`,
              csvField(r.description),
              fee(r.connect_fee_micros),
              fee(r.min_charge_micros),
            ].join(",") + "\r\n",
        )
        .join(""),
  );
  const day = new Date(Number(deck.from_ms)).toISOString().slice(0, 10);
  return { body, filename: `${deck.side}-deck-${deck.owner}-${day}-${deckId}.csv` };
}

/** The id of the owner's deck in force now; 404 when the owner is unknown or has none in force. */
export async function deckInForceId(db: Executor, side: CardSide, ownerId: string): Promise<string> {
  const rows = await queryRows<{ id: string | null }>(
    db,
    sql`SELECT (SELECT d.id::text FROM rate_decks d WHERE d.${ownerColumn(side)} = o.id AND d.effective_from <= now()
                ORDER BY d.effective_from DESC LIMIT 1) AS id
        FROM ${ownerTable(side)} o WHERE o.id = ${ownerId}`,
  );
  const what = side === "sell" ? "billing group" : "supplier";
  if (rows.length === 0) throw new ApiError("not_found", `No ${what} with id ${JSON.stringify(ownerId.slice(0, 64))}.`);
  if (rows[0].id === null) throw new ApiError("not_found", `The ${what} ${ownerId} has no rate deck in force.`);
  return rows[0].id;
}

export function deckFileResponse(file: DeckFile): Response {
  return new Response(file.body as BodyInit, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
