import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { authorizationRefusals } from "@/lib/db/schema";
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

/** Stored in the authorization's transaction, which then commits with nothing reserved. */
export async function recordRefusal(
  tx: Executor,
  groupId: string,
  call: { uuid: string; destination: string },
  r: LimitRefusal,
): Promise<void> {
  await tx.insert(authorizationRefusals).values({
    billingGroupId: groupId,
    uuid: call.uuid,
    destination: call.destination,
    code: r.code,
    limitName: r.limit,
    limitValue: r.limitValue,
    currentValue: r.currentValue,
    detail: r.detail,
  });
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

/**
 * The rules over a sliding window (calls per second, distinct destinations, calls per prefix), in one statement whose
 * cost does not grow with the window's content: calls per second counts the last second's authorizations
 * (authorizations_created_idx; at most the limit's worth), the velocity rules read their counters (migration 0031,
 * fed by recordVelocity): a destination's last admitted call, and one-second buckets of calls per prefix, of which
 * the window sums every bucket it touches (conservative: it may count a call up to one second older than the window,
 * never one fewer). Counters older than the longest window are deleted as they are met. Windows end at
 * clock_timestamp(), read after the lock, and the admitted call is counted later still: as the lock orders them, no
 * window can ever hold more than its maximum.
 */
export async function windowRefusal(
  tx: Executor,
  groupId: string,
  limits: EffectiveLimits,
  call: { digits: string; prefix: string },
): Promise<LimitRefusal | null> {
  const ago = (seconds: number) => sql`c.at - ${`${seconds} seconds`}::interval`;
  const columns: SQL[] = [];
  if (limits.callsPerSecond !== null)
    columns.push(
      sql`(SELECT count(*) FROM authorizations a WHERE a.billing_group_id = ${groupId} AND a.created_at > ${ago(1)}) AS cps`,
    );
  limits.distinctDestinations.forEach((rule, i) => {
    columns.push(
      sql`(SELECT count(*) FROM velocity_destinations v WHERE v.billing_group_id = ${groupId}
            AND v.last_seen > ${ago(rule.windowSeconds)}) AS ${sql.raw(`d${i}`)}`,
      sql`EXISTS (SELECT 1 FROM velocity_destinations v WHERE v.billing_group_id = ${groupId}
            AND v.digits = ${call.digits} AND v.last_seen > ${ago(rule.windowSeconds)}) AS ${sql.raw(`s${i}`)}`,
    );
  });
  limits.callsPerPrefix.forEach((rule, i) => {
    columns.push(
      sql`(SELECT coalesce(sum(b.calls), 0) FROM velocity_prefix_buckets b WHERE b.billing_group_id = ${groupId}
            AND b.prefix = ${call.prefix} AND b.bucket >= floor(extract(epoch FROM ${ago(rule.windowSeconds)}))) AS ${sql.raw(`p${i}`)}`,
    );
  });
  const ctes: SQL[] = [sql`c AS MATERIALIZED (SELECT clock_timestamp() AS at)`];
  const destWindow = Math.max(0, ...limits.distinctDestinations.map((r) => r.windowSeconds));
  if (destWindow > 0)
    ctes.push(
      sql`gone_d AS (DELETE FROM velocity_destinations v USING c WHERE v.billing_group_id = ${groupId}
            AND v.last_seen <= ${ago(destWindow)})`,
    );
  const prefixWindow = Math.max(0, ...limits.callsPerPrefix.map((r) => r.windowSeconds));
  if (prefixWindow > 0)
    ctes.push(
      sql`gone_p AS (DELETE FROM velocity_prefix_buckets b USING c WHERE b.billing_group_id = ${groupId}
            AND b.bucket < floor(extract(epoch FROM ${ago(prefixWindow)})) - 1)`,
    );
  const [row] = await queryRows<Record<string, string | number | boolean>>(
    tx,
    sql`WITH ${sql.join(ctes, sql`, `)} SELECT ${sql.join(columns, sql`, `)} FROM c`,
  );
  const cps = limits.callsPerSecond;
  if (cps !== null && Number(row.cps) >= cps) {
    return {
      code: "calls_per_second_limit",
      limit: "callsPerSecond",
      limitValue: String(cps),
      currentValue: String(row.cps),
      detail: `The account's limit of ${cps} calls per second is reached: ${row.cps} in the last second.`,
    };
  }
  for (const [i, rule] of limits.distinctDestinations.entries()) {
    const n = Number(row[`d${i}`]);
    const seen = row[`s${i}`] === true || row[`s${i}`] === "t";
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
    const n = Number(row[`p${i}`]);
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
 * rule is on), in the admitting transaction under the group's lock: a rollback, or a killed process, counts nothing.
 */
export async function recordVelocity(
  tx: Executor,
  groupId: string,
  limits: EffectiveLimits,
  call: { digits: string; prefix: string },
): Promise<void> {
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
  if (writes.length === 0) return;
  await tx.execute(sql`WITH c AS MATERIALIZED (SELECT clock_timestamp() AS at), ${sql.join(writes, sql`, `)} SELECT 1`);
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
    sql`WITH b AS MATERIALIZED (
          SELECT date_trunc('month', now(), ${timeZone}) AS m, date_trunc('day', now(), ${timeZone}) AS d
        ), h AS MATERIALIZED (
          SELECT m, d, date_trunc('hour', m) + CASE WHEN date_trunc('hour', m) < m THEN interval '1 hour' ELSE interval '0' END AS m_up,
                 date_trunc('hour', d) AS d_down
          FROM b
        )
        SELECT
          (SELECT coalesce(sum(q.price_micros), 0) FROM usage_quarter q, h
            WHERE q.billing_group_id = ${groupId} AND q.quarter >= h.d)::text AS today,
          (SELECT CASE WHEN h.d = h.m THEN 0 ELSE
            (SELECT coalesce(sum(u.price_micros), 0) FROM usage_hourly u
              WHERE u.billing_group_id = ${groupId} AND u.hour >= h.m_up AND u.hour < h.d_down)
            + (SELECT coalesce(sum(q.price_micros), 0) FROM usage_quarter q
              WHERE q.billing_group_id = ${groupId}
                AND ((q.quarter >= h.m AND q.quarter < h.m_up) OR (q.quarter >= h.d_down AND q.quarter < h.d)))
           END FROM h)::text AS before`,
  );
  const today = BigInt(row.today);
  return { todayMicros: today, monthMicros: today + BigInt(row.before) };
}

/**
 * What the spend caps leave for one more reservation: cap - settled - open reservations, the lower of the two; null
 * when neither is set (no query).
 */
export async function spendHeadroom(
  tx: Executor,
  groupId: string,
  timeZone: string,
  limits: EffectiveLimits,
  openMicros: bigint,
): Promise<{ headroom: bigint; refusal: LimitRefusal } | null> {
  const daily = limits.dailySpendMicros;
  const monthly = limits.monthlySpendMicros;
  if (daily === null && monthly === null) return null;
  const spent = await settledSpend(tx, groupId, timeZone);
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
