import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { decodeKeysetCursor, encodeKeysetCursor, scopeHash } from "@/lib/http/keyset-cursor";
import { nextPageLink } from "@/lib/http/next-page-link";
import { ownerColumn, ownerTable, type CardSide } from "./find-rate";
import type { DeckPage, DeckSummary } from "./schemas";

interface DeckRow {
  id: string;
  effective_from: string;
  imported_at: string;
  imported_by_type: string | null;
  imported_by_id: string | null;
  imported_by_label: string | null;
  rates: number | bigint;
  in_force: boolean;
}

const OWNER = { sell: "billing group", buy: "supplier" } as const;

export interface DeckListing {
  decks: DeckSummary[];
  nextCursor?: string;
  hasMore: boolean;
}

/**
 * An owner's decks and their history, newest effective-from first (keyset on effective_from, id), each with who
 * imported it, its size and whether it is scheduled, in force now, or superseded. 404 for an unknown owner.
 */
export async function listDecks(
  db: Executor,
  side: CardSide,
  ownerId: string,
  page: { pageSize: number; cursor?: string },
): Promise<DeckListing> {
  const hash = scopeHash({ side, ownerId });
  const after = page.cursor ? decodeKeysetCursor(page.cursor, hash) : null;
  const owner = await queryRows<{ id: string }>(db, sql`SELECT id FROM ${ownerTable(side)} WHERE id = ${ownerId}`);
  if (owner.length === 0)
    throw new ApiError("not_found", `No ${OWNER[side]} with id ${JSON.stringify(ownerId.slice(0, 64))}.`);
  const col = ownerColumn(side);
  const rows = await queryRows<DeckRow>(
    db,
    sql`WITH current AS (
          SELECT id FROM rate_decks WHERE ${col} = ${ownerId} AND effective_from <= now()
          ORDER BY effective_from DESC LIMIT 1)
        SELECT d.id::text AS id, (extract(epoch FROM d.effective_from) * 1000)::bigint::text AS effective_from,
          (extract(epoch FROM d.imported_at) * 1000)::bigint::text AS imported_at,
          d.imported_by_type, d.imported_by_id, d.imported_by_label,
          (SELECT count(*) FROM ${side === "sell" ? sql`sell_rates` : sql`buy_rates`} r WHERE r.deck_id = d.id) AS rates,
          d.id IN (SELECT id FROM current) AS in_force
        FROM rate_decks d
        WHERE d.${col} = ${ownerId}
          ${after ? sql`AND (d.effective_from, d.id) < (${after.at.toISOString()}::timestamptz, ${after.id.toString()}::bigint)` : sql``}
        ORDER BY d.effective_from DESC, d.id DESC
        LIMIT ${page.pageSize + 1}`,
  );
  const hasMore = rows.length > page.pageSize;
  const shown = rows.slice(0, page.pageSize);
  const now = Date.now();
  const decks = shown.map((r): DeckSummary => {
    const from = new Date(Number(r.effective_from));
    return {
      id: r.id,
      effectiveFrom: from.toISOString(),
      importedAt: new Date(Number(r.imported_at)).toISOString(),
      importedBy: r.imported_by_type
        ? { type: r.imported_by_type, id: r.imported_by_id, label: r.imported_by_label }
        : null,
      rates: Number(r.rates),
      status: r.in_force ? "in_force" : from.getTime() > now ? "scheduled" : "superseded",
    };
  });
  const last = shown.at(-1);
  return {
    decks,
    hasMore,
    nextCursor:
      hasMore && last
        ? encodeKeysetCursor({ at: new Date(Number(last.effective_from)), id: BigInt(last.id) }, hash)
        : undefined,
  };
}

/** GET /v1/{accounts,suppliers}/{id}/rate-decks: a page, with the absolute URL of the next one. */
export async function deckPage(
  db: Executor,
  side: CardSide,
  ownerId: string,
  query: { pageSize: number; cursor?: string },
  origin: string,
): Promise<DeckPage> {
  const listing = await listDecks(db, side, ownerId, { pageSize: query.pageSize, cursor: query.cursor || undefined });
  const path = `/v1/${side === "sell" ? "accounts" : "suppliers"}/${encodeURIComponent(ownerId)}/rate-decks` as const;
  const nextPageUrl = nextPageLink(origin, path, query, [], listing.nextCursor);
  return { decks: listing.decks, nextPageUrl, meta: { pageSize: query.pageSize, hasMore: listing.hasMore } };
}
