import { sql } from "drizzle-orm";
import { queryRows, type Tx } from "@/lib/db/client";
import type { WindowCounts } from "@/lib/limits/enforce";
import { storedLayerOf, type LimitLayers } from "@/lib/limits/layers";

// What an authorization decides on, read in one round trip under the group's row lock (authorize_state, migration
// 0032, extended by 0033 and 0034; docs/contract.md §22 "Cost"). The account's row is locked, and the tier lock of it
// and of every ancestor (0034), so the holds at each tier are exact; the ancestors' rows are read, not locked.

/** authorize_state's JSON: money as decimal strings of micro-units; absent keys belong to rules that are off. */
interface StoredState {
  balance: string;
  creditLimit: string;
  disabled: boolean;
  version: number;
  timeZone: string;
  limitsHit: boolean;
  operator: Record<string, unknown> | null;
  /** Every provider's layer, in the order authorize_state counts their windows (migration 0041). */
  providers: Record<string, unknown>[] | null;
  customer: Record<string, unknown> | null;
  existing: boolean;
  callId: string | null;
  activeCount?: number;
  activeMicros?: string;
  heldMicros?: string;
  cps?: number;
  destinations?: { n: number; seen: boolean }[];
  prefixes?: Record<string, number>[];
  spentToday?: string;
  spentBefore?: string;
  tiers?: StoredTier[];
}

interface StoredTier {
  id: string;
  depth: number;
  version: number;
  headroom: string;
  reason: BlockingTier["reason"] | null;
}

/** An ancestor that stops the account's calls: disabled by the operator, at its credit limit, or fully reserved. */
export interface BlockingTier {
  id: string;
  reason: "operator" | "credit_limit" | "reserved";
}

/** An ancestor of the account (ancestor_tiers, migration 0034): what it may still hold for the call. */
export interface AncestorTier {
  id: string;
  /** 1 = the account's parent. */
  depth: number;
  rateCardVersion: number;
  /** Balance + credit limit, less its own open reservations and its subtree's open holds at it. */
  headroomMicros: bigint;
}

export interface AuthorizeState {
  balanceMicros: bigint;
  creditLimitMicros: bigint;
  disabled: boolean;
  rateCardVersion: number;
  timeZone: string;
  /** A limit was told as hit: the admitting statement re-arms them. */
  limitsHit: boolean;
  /**
   * The stored layers, parsed once from authorize_state's answer (providers in its order, migration 0041); null: the
   * account has no limits row.
   */
  limits: LimitLayers | null;
  /** The uuid is authorized already (the caller reads it: a replay). */
  existing: boolean;
  /** The uuid's call is stored already. */
  callId: string | null;
  active: { count: number; totalMicros: bigint };
  /** The open holds of the account's subtree at it (0 for an account without children): they use its balance too. */
  heldMicros: bigint;
  windows: WindowCounts;
  /** Today's and the month's earlier settled spend; null when no spend cap is on. */
  spent: { today: string; before: string } | null;
  /** Ancestors blocking the account's calls, nearest first; empty for a root account or a clear tree. */
  blockedBy: BlockingTier[];
  /** Every ancestor, nearest first; empty for a root account. */
  tiers: AncestorTier[];
}

/** Locks the group's row and reads its state; undefined when there is no such group. */
export async function readAuthorizeState(
  tx: Tx,
  groupId: string,
  uuid: string,
  digits: string,
): Promise<AuthorizeState | undefined> {
  const [row] = await queryRows<{ s: string | null }>(
    tx,
    sql`SELECT authorize_state(${groupId}, ${uuid}, ${digits})::text AS s`,
  );
  if (!row?.s) return undefined;
  const s = JSON.parse(row.s) as StoredState;
  return {
    balanceMicros: BigInt(s.balance),
    creditLimitMicros: BigInt(s.creditLimit),
    disabled: s.disabled,
    rateCardVersion: Number(s.version),
    timeZone: s.timeZone,
    limitsHit: s.limitsHit,
    limits:
      s.operator === null
        ? null
        : {
            operator: storedLayerOf(s.operator),
            providers: (s.providers ?? []).map(storedLayerOf),
            customer: storedLayerOf(s.customer),
          },
    existing: s.existing,
    callId: s.callId,
    active: { count: Number(s.activeCount ?? 0), totalMicros: BigInt(s.activeMicros ?? "0") },
    windows: { cps: s.cps, destinations: s.destinations ?? [], prefixes: s.prefixes ?? [] },
    spent: s.spentToday === undefined ? null : { today: s.spentToday, before: s.spentBefore ?? "0" },
    heldMicros: BigInt(s.heldMicros ?? "0"),
    blockedBy: (s.tiers ?? []).flatMap((t) => (t.reason === null ? [] : [{ id: t.id, reason: t.reason }])),
    tiers: (s.tiers ?? []).map((t) => ({
      id: t.id,
      depth: Number(t.depth),
      rateCardVersion: Number(t.version),
      headroomMicros: BigInt(t.headroom),
    })),
  };
}
