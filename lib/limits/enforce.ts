import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros } from "@/lib/money/micros";
import type { EffectiveLimits } from "./layers";
import type { RefusalCode } from "./schemas";

// The limits' checks inside POST /v1/authorizations's transaction, which holds the group's row lock (FOR UPDATE):
// every authorization of a group, from any process, passes here one at a time, so what they count is exact. Each
// check runs only when its rule is on; the counts come from the authorizations themselves (a settled or expired one
// stops counting as in progress at once, so no slot can leak) and from the usage rollups the CDRs' ingest keeps.

export interface LimitRefusal {
  code: RefusalCode;
  /** The limit's field in Limits (`maxConcurrentCalls`). */
  limit: string;
  limitValue: string;
  currentValue: string;
  detail: string;
}

export function refusalError(r: LimitRefusal): ApiError {
  return new ApiError(r.code, r.detail, [
    { param: r.limit, message: `limit ${r.limitValue}, current ${r.currentValue}` },
  ]);
}

/**
 * The reservations that still count against a group (not settled, not expired): how many (the calls in progress a
 * concurrency limit counts: a call's CDR settles its authorization in the ingest's transaction, lib/authorizations/
 * triggers.ts, and its expiry ends it, so a slot can never leak) and their sum, which the balance and the spend caps
 * count. One query, which POST /v1/authorizations ran for the sum before there were limits.
 */
export async function activeReservations(
  db: Executor,
  billingGroupId: string,
): Promise<{ count: number; totalMicros: bigint }> {
  const [row] = await queryRows<{ n: string | number; total: string }>(
    db,
    sql`SELECT count(*) AS n, coalesce(sum(reserved_micros), 0)::text AS total FROM authorizations
        WHERE billing_group_id = ${billingGroupId} AND settled_at IS NULL AND expires_at > now()`,
  );
  return { count: Number(row.n), totalMicros: BigInt(row.total) };
}

export function concurrencyRefusal(limits: EffectiveLimits, active: number): LimitRefusal | null {
  const max = limits.maxConcurrentCalls;
  if (max === null || active < max) return null;
  return {
    code: "concurrent_calls_limit",
    limit: "maxConcurrentCalls",
    limitValue: String(max),
    currentValue: String(active),
    detail: `The account's limit of ${max} concurrent calls is reached: ${active} are in progress.`,
  };
}

/** What authorize_state (migration 0032) counted for the window rules that are on. */
export interface WindowCounts {
  /** Authorizations of the last second; present when calls per second is on. */
  cps?: number;
  /** Per distinct-destinations rule, in EffectiveLimits' order: destinations seen (at most max + 1), this one among them. */
  destinations: { n: number; seen: boolean }[];
  /** Per calls-per-prefix rule, in EffectiveLimits' order: the window's calls by prefix of the dialled digits. */
  prefixes: Record<string, number>[];
}

/**
 * The rules over a sliding window (calls per second, distinct destinations, calls per prefix), on counts whose cost
 * does not grow with the window's content (authorize_state, migration 0032, under the group's row lock): calls per
 * second counts the last second's authorizations (authorizations_created_idx; at most the limit's worth), the velocity
 * rules read their counters (migration 0031, fed by velocityWrites): a destination's last admitted call, counted no
 * further than the rule's max + 1, and one-second buckets of calls per prefix, of which the window sums every bucket it
 * touches (conservative: it may count a call up to one second older than the window, never one fewer). Windows end at
 * clock_timestamp(), read after the lock, and the admitted call is counted later still: as the lock orders them, no
 * window can ever hold more than its maximum. Pure.
 */
export function windowRefusal(
  limits: EffectiveLimits,
  counts: WindowCounts,
  call: { digits: string; prefix: string },
): LimitRefusal | null {
  const cps = limits.callsPerSecond;
  if (cps !== null && (counts.cps ?? 0) >= cps) {
    return {
      code: "calls_per_second_limit",
      limit: "callsPerSecond",
      limitValue: String(cps),
      currentValue: String(counts.cps),
      detail: `The account's limit of ${cps} calls per second is reached: ${counts.cps} in the last second.`,
    };
  }
  for (const [i, rule] of limits.distinctDestinations.entries()) {
    const { n, seen } = counts.destinations[i];
    if (!seen && n >= rule.max) {
      return {
        code: "velocity_limit",
        limit: "distinctDestinations",
        limitValue: `${rule.max}/${rule.windowSeconds}s`,
        currentValue: String(n),
        detail: `The account's limit of ${rule.max} distinct destinations per ${rule.windowSeconds} s is reached: ${n} were called.`,
      };
    }
  }
  for (const [i, rule] of limits.callsPerPrefix.entries()) {
    const n = Number(counts.prefixes[i][call.prefix] ?? 0);
    if (n >= rule.max) {
      return {
        code: "velocity_limit",
        limit: "callsPerPrefix",
        limitValue: `${rule.max}/${rule.windowSeconds}s`,
        currentValue: String(n),
        detail: `The account's limit of ${rule.max} calls to ${call.prefix} per ${rule.windowSeconds} s is reached: ${n} were authorized.`,
      };
    }
  }
  return null;
}

/**
 * Counts an admitted call in the velocity counters its rules read (only those on: an account counts from when its
 * rule is on): CTEs of the admitting statement, which names `c` (its clock_timestamp()), under the group's lock, so a
 * rollback, or a killed process, counts nothing.
 */
export function velocityWrites(
  groupId: string,
  limits: EffectiveLimits,
  call: { digits: string; prefix: string },
): SQL[] {
  const writes: SQL[] = [];
  if (limits.distinctDestinations.length > 0)
    writes.push(
      sql`d AS (INSERT INTO velocity_destinations (billing_group_id, digits, last_seen)
            SELECT ${groupId}, ${call.digits}, c.at FROM c
            ON CONFLICT (billing_group_id, digits) DO UPDATE SET last_seen = excluded.last_seen)`,
    );
  if (limits.callsPerPrefix.length > 0)
    writes.push(
      sql`p AS (INSERT INTO velocity_prefix_buckets (billing_group_id, prefix, bucket, calls)
            SELECT ${groupId}, ${call.prefix}, floor(extract(epoch FROM c.at)), 1 FROM c
            ON CONFLICT (billing_group_id, prefix, bucket) DO UPDATE SET calls = velocity_prefix_buckets.calls + 1)`,
    );
  return writes;
}

export interface SettledSpend {
  todayMicros: bigint;
  monthMicros: bigint;
}

/**
 * Prices of the group's calls today and this month in its time zone, settled by their CDRs (authorized or not), from
 * the usage rollups that ingest keeps in its own transaction: today from usage_quarter (a local midnight falls on a
 * quarter in every zone), the month's earlier days from usage_hourly for whole hours and usage_quarter for the hour
 * a :30 or :45 zone's month start or today's start cuts.
 */
export async function settledSpend(db: Executor, groupId: string, timeZone: string): Promise<SettledSpend> {
  const [row] = await queryRows<{ today: string; before: string }>(
    db,
    sql`SELECT today::text AS today, before::text AS before FROM settled_spend(${groupId}, ${timeZone})`,
  );
  return spentOf(row.today, row.before);
}

export function spentOf(today: string, before: string): SettledSpend {
  const todayMicros = BigInt(today);
  return { todayMicros, monthMicros: todayMicros + BigInt(before) };
}

/**
 * What the spend caps leave for one more reservation: cap - settled - open reservations, the lower of the two; null
 * when neither is set (authorize_state then reads no spend). Pure.
 */
export function spendHeadroom(
  limits: EffectiveLimits,
  spent: SettledSpend | null,
  openMicros: bigint,
): { headroom: bigint; refusal: LimitRefusal } | null {
  const daily = limits.dailySpendMicros;
  const monthly = limits.monthlySpendMicros;
  if (daily === null && monthly === null) return null;
  if (spent === null) throw new Error("the settled spend was not read although a spend cap is on");
  const caps = [
    { cap: daily, used: spent.todayMicros, code: "daily_spend_limit" as const, limit: "dailySpend", per: "day" },
    {
      cap: monthly,
      used: spent.monthMicros,
      code: "monthly_spend_limit" as const,
      limit: "monthlySpend",
      per: "month",
    },
  ].flatMap((c) => (c.cap === null ? [] : [{ ...c, cap: c.cap, left: c.cap - c.used - openMicros }]));
  const tightest = caps.reduce((a, b) => (b.left < a.left ? b : a));
  const current = tightest.used + openMicros;
  return {
    headroom: tightest.left,
    refusal: {
      code: tightest.code,
      limit: tightest.limit,
      limitValue: formatMicros(tightest.cap),
      currentValue: formatMicros(current),
      detail:
        `The account's spend limit of ${formatMicros(tightest.cap)} per ${tightest.per} leaves less than one second: ` +
        `${formatMicros(current)} is spent or reserved.`,
    },
  };
}
