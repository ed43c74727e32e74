import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import type { RateCard } from "./find-rate";
import { rateCall } from "./rate-call";

// Reseller tiers (docs/contract.md "Reseller tiers"): a call of account A whose ancestors are P1 (its parent) .. Pk
// (a root account, buying from the operator) is rated once per ancestor, at that ancestor's own sell deck in force at
// the call's start (what Pi pays its parent for the call), with the same rating as the call itself (rateCall: longest
// prefix, increments, connect fee, minimum charge). One call_tier_charges row per call and ancestor.

/** What one tier above a call's account pays its own parent for the call (a call_tier_charges row's rating). */
export interface TierCharge {
  tierGroupId: string;
  /** 1 = the account's parent. */
  depth: number;
  /** false: the tier's deck has no rate for the call; price 0, not debited, re-ratable. */
  rated: boolean;
  matchedPrefix: string | null;
  rateMicros: bigint | null;
  billDuration: number;
  priceMicros: bigint;
  rateDeckId: number | null;
}

/** A group's parent (null: a root account) and its rate_card_version, as the account tree query answers them. */
export interface TreeNode {
  parentId: string | null;
  version: number;
}

/** The ancestors of `groupId`, its parent first, from the tree nodes read for a batch. */
export function ancestorChain(tree: ReadonlyMap<string, TreeNode>, groupId: string): string[] {
  const chain: string[] = [];
  for (let id = tree.get(groupId)?.parentId ?? null; id !== null; id = tree.get(id)?.parentId ?? null) {
    // Parents are set at creation to an existing account, so the tree has no cycle; a bound keeps a bug finite.
    if (chain.length > 64) throw new Error(`the account tree above ${groupId} is deeper than 64`);
    chain.push(id);
  }
  return chain;
}

/** Rates a call at each ancestor's deck (`cardOf` answers the deck in force at the call's start, null: none). */
export function rateTiers(
  chain: readonly string[],
  destination: string,
  answerMicros: number | null,
  endMicros: number,
  cardOf: (tierGroupId: string) => RateCard | null,
): TierCharge[] {
  return chain.map((tierGroupId, i) => {
    const r = rateCall(destination, answerMicros, endMicros, cardOf(tierGroupId), null);
    return {
      tierGroupId,
      depth: i + 1,
      rated: r.rated,
      matchedPrefix: r.matchedPrefix,
      rateMicros: r.sellRateMicros,
      billDuration: r.billDuration,
      priceMicros: r.priceMicros,
      rateDeckId: r.rateDeckId,
    };
  });
}

/** Same rating (what the rerate compares before writing). */
export function sameTierCharge(a: TierCharge, b: TierCharge): boolean {
  return (
    a.rated === b.rated &&
    a.matchedPrefix === b.matchedPrefix &&
    a.rateMicros === b.rateMicros &&
    a.billDuration === b.billDuration &&
    a.priceMicros === b.priceMicros &&
    a.rateDeckId === b.rateDeckId
  );
}

/** One tier charge as a JSON record for TIER_RECORDSET (bigints as text), keyed by `key`. */
export function tierRecord(key: Record<string, string>, t: TierCharge) {
  return {
    ...key,
    tier: t.tierGroupId,
    depth: t.depth,
    rated: t.rated,
    prefix: t.matchedPrefix,
    rate: t.rateMicros === null ? null : t.rateMicros.toString(),
    bill: t.billDuration,
    price: t.priceMicros.toString(),
    deck: t.rateDeckId,
  };
}

/** The columns of tierRecord's rating in json_to_recordset, after the caller's key columns. */
export const TIER_RECORDSET = sql.raw(
  "tier text, depth smallint, rated boolean, prefix text, rate bigint, bill integer, price bigint, deck bigint",
);

/** A stored call_tier_charges row (selected with TIER_SELECT) as a TierCharge. */
export function storedTierCharge(row: TierRow): TierCharge {
  return {
    tierGroupId: row.tier_group_id,
    depth: Number(row.depth),
    rated: row.rated,
    matchedPrefix: row.matched_prefix,
    rateMicros: row.rate_micros === null ? null : BigInt(row.rate_micros),
    billDuration: Number(row.bill_duration),
    priceMicros: BigInt(row.price_micros),
    rateDeckId: row.rate_deck_id === null ? null : Number(row.rate_deck_id),
  };
}

export interface TierRow {
  call_id: string;
  tier_group_id: string;
  depth: number;
  rated: boolean;
  matched_prefix: string | null;
  rate_micros: string | null;
  bill_duration: number;
  price_micros: string;
  rate_deck_id: string | null;
}

/** The columns of a TierRow, from call_tier_charges aliased `t`. */
export const TIER_SELECT = sql.raw(
  "t.call_id::text AS call_id, t.tier_group_id, t.depth, t.rated, t.matched_prefix, t.rate_micros::text AS rate_micros, " +
    "t.bill_duration, t.price_micros::text AS price_micros, t.rate_deck_id::text AS rate_deck_id",
);

/**
 * The accounts `groupIds` and every ancestor of theirs, with parent and rate_card_version, as a recursive CTE body
 * named `tree` (id, parent_id, rate_card_version). `start` selects the starting ids.
 */
export function accountTreeSql(start: SQL): SQL {
  return sql`tree AS (
      SELECT g.id, g.parent_id, g.rate_card_version FROM billing_groups g WHERE g.id IN (${start})
      UNION
      SELECT p.id, p.parent_id, p.rate_card_version FROM tree JOIN billing_groups p ON p.id = tree.parent_id
    )`;
}

/** The tree nodes of `groupIds` and all their ancestors (one statement). */
export async function loadAccountTree(db: Executor, groupIds: Iterable<string>): Promise<Map<string, TreeNode>> {
  const ids = JSON.stringify([...new Set(groupIds)]);
  const rows = await queryRows<{ id: string; parent_id: string | null; rate_card_version: number | bigint }>(
    db,
    sql`WITH RECURSIVE ${accountTreeSql(sql`SELECT json_array_elements_text(${ids}::json)`)}
        SELECT id, parent_id, rate_card_version FROM tree`,
  );
  return new Map(rows.map((r) => [r.id, { parentId: r.parent_id, version: Number(r.rate_card_version) }]));
}
