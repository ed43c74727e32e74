import { sql } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { reachOf, resolveAccount } from "@/lib/auth/reach";
import { authorizationTtlMarginSeconds, maxCallSeconds } from "@/lib/config/env";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { checkDestination, effectiveLimits } from "@/lib/limits/layers";
import {
  activeReservations,
  concurrencyRefusal,
  refusalError,
  spendHeadroom,
  spentOf,
  velocityWrites,
  windowRefusal,
  type LimitRefusal,
} from "@/lib/limits/enforce";
import { rearmLimitHits, recordRefusal } from "@/lib/limits/limit-hits";
import { microsToNumber } from "@/lib/money/micros";
import { priceCall } from "@/lib/rating/billing-math";
import { feesOf, getRateCard, type RateMatch } from "@/lib/rating/find-rate";
import { formatIncrement } from "@/lib/rating/schemas";
import { maxAffordableSeconds } from "./max-duration";
import type { Authorization, AuthorizationRequest } from "./schemas";
import { readAuthorizeState, type AncestorTier, type BlockingTier } from "./state";

const tierReason: Record<BlockingTier["reason"], string> = {
  operator: "is disabled by the operator",
  credit_limit: "is at its credit limit",
  reserved: "has no headroom left (balance + credit limit, less its open reservations)",
};

// Prepaid authorizations (POST /v1/authorizations): a reservation against the balance for a call about to connect.
// No trigger acts on `authorizations` itself, but one on calls writes it: the call's final CDR settles its
// reservation in the ingest's transaction (lib/authorizations/triggers.ts).

/** Seconds a reservation outlives its grant: ringing before the answer, and the CDR's trip after the hangup. */
function ttlMarginSeconds(): number {
  return authorizationTtlMarginSeconds();
}

/** The price ingest would charge for `seconds` answered on this rate: the rating's own arithmetic, fees included. */
function priceForSeconds(rate: RateMatch, seconds: number): bigint {
  return priceCall(rate.rateMicros, rate.increment, seconds, feesOf(rate)).micros;
}

/** An ancestor's rate for the call at its own deck in force (as ingest rates call_tier_charges); null: unrated there. */
interface TierRate {
  tier: AncestorTier;
  rate: RateMatch | null;
}

async function tierRates(tx: Executor, tiers: AncestorTier[], digits: string): Promise<TierRate[]> {
  const rates: TierRate[] = [];
  for (const tier of tiers) {
    const card = await getRateCard(tx, "sell", tier.id, tier.rateCardVersion);
    rates.push({ tier, rate: card?.match(digits) ?? null });
  }
  return rates;
}

/** The tiers' holds of the admitted authorization: a CTE of the admitting statement, which names `a` (its row). */
function tierHoldsWrite(holds: { tier: string; depth: number; reserved: string }[]) {
  return sql`h AS (INSERT INTO authorization_tier_holds (tier_group_id, billing_group_id, uuid, depth, reserved_micros, expires_at)
      SELECT x.tier, a.billing_group_id, a.uuid, x.depth, x.reserved, a.expires_at
      FROM a, json_to_recordset(${JSON.stringify(holds)}::json) AS x(tier text, depth smallint, reserved bigint))`;
}

interface Row {
  billing_group_id: string;
  uuid: string;
  destination: string;
  from_number: string | null;
  matched_prefix: string;
  sell_rate_micros: string;
  increment_min: number;
  increment_interval: number;
  max_duration_seconds: number;
  reserved_micros: string;
  created_at: string;
  expires_at: string;
  settled_at: string | null;
  call_id: string | null;
  status: Authorization["status"];
  currency: string;
}

const SELECT_COLUMNS = sql`a.billing_group_id, a.uuid, a.destination, a.from_number, a.matched_prefix,
  a.sell_rate_micros::text AS sell_rate_micros, a.increment_min, a.increment_interval, a.max_duration_seconds,
  a.reserved_micros::text AS reserved_micros,
  to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(a.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
  to_char(a.settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS settled_at,
  a.call_id::text AS call_id,
  CASE WHEN a.settled_at IS NOT NULL THEN 'settled' WHEN a.expires_at <= now() THEN 'expired' ELSE 'active' END AS status,
  trim(g.currency) AS currency`;

function toAuthorization(r: Row): Authorization {
  return {
    uuid: r.uuid,
    billingGroupId: r.billing_group_id,
    destination: r.destination,
    from: r.from_number,
    status: r.status,
    maxDurationSeconds: Number(r.max_duration_seconds),
    reserved: microsToNumber(BigInt(r.reserved_micros)),
    currency: r.currency,
    matchedPrefix: r.matched_prefix,
    sellRate: microsToNumber(BigInt(r.sell_rate_micros)),
    billingIncrement: formatIncrement({ min: Number(r.increment_min), interval: Number(r.increment_interval) }),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    settledAt: r.settled_at,
    callId: r.call_id,
  };
}

/** One authorization as its group's keys see it; undefined when absent (or another group's). */
export async function getAuthorization(
  db: Executor,
  billingGroupId: string,
  uuid: string,
): Promise<Authorization | undefined> {
  const [row] = await queryRows<Row>(
    db,
    sql`SELECT ${SELECT_COLUMNS} FROM authorizations a JOIN billing_groups g ON g.id = a.billing_group_id
        WHERE a.billing_group_id = ${billingGroupId} AND a.uuid = ${uuid}`,
  );
  return row && toAuthorization(row);
}

/** Sum of the reservations that still count against a group: not settled, not expired. */
export async function activeReservedMicros(db: Executor, billingGroupId: string): Promise<bigint> {
  return (await activeReservations(db, billingGroupId)).totalMicros;
}

export interface AuthorizeOutcome {
  /** false: the same uuid was authorized before; its authorization is answered unchanged. */
  created: boolean;
  authorization: Authorization;
}

function notFoundGroup(id: string): ApiError {
  return new ApiError("not_found", `No billing group ${id} is visible to this key.`);
}

/**
 * POST /v1/authorizations: the longest the call may last on the group's balance and credit limit, held as a
 * reservation until its CDR settles it or its TTL passes. The group's row is locked (FOR UPDATE) while the
 * available amount is read and the reservation written, so concurrent authorizations on one group (any number of
 * processes) queue there and never reserve more than is available. Idempotent by (group, uuid).
 * The account's limits (lib/limits) are read with the lock and enforced under it, so they are as exact as the
 * balance; a refusal is recorded (GET /v1/authorizations/refusals) and nothing is reserved. Under the lock: one round
 * trip reads (authorize_state, lib/authorizations/state.ts), one writes, whatever rules are on.
 */
export async function authorizeCall(
  db: Db,
  principal: Principal,
  request: AuthorizationRequest,
): Promise<AuthorizeOutcome> {
  // A bound key charges its own group; naming another answers like an unknown one (nothing leaks).
  const resolved = resolveAccount(reachOf(principal), request.billingGroupId);
  if ("outside" in resolved) throw notFoundGroup(resolved.outside);
  if (resolved.account === null) {
    throw new ApiError(
      "billing_group_required",
      "A platform key names the group to charge in `billingGroupId` (list them with GET /v1/accounts).",
    );
  }
  const groupId = resolved.account;
  const digits = request.destination.replace(/^\+/, "");
  const cap = Math.min(request.maxDurationSeconds ?? Number.MAX_SAFE_INTEGER, maxCallSeconds());

  const outcome = await db.transaction(async (tx): Promise<AuthorizeOutcome | { refused: LimitRefusal }> => {
    // One round trip takes the lock and reads everything the checks below decide on (authorize_state, migration
    // 0032); one more writes the authorization or the refusal. An account without limits reads no rule's counts.
    const group = await readAuthorizeState(tx, groupId, request.uuid, digits);
    if (!group) throw notFoundGroup(groupId);

    if (group.existing) {
      const existing = (await getAuthorization(tx, groupId, request.uuid))!;
      // `+` is ignored for matching, so `+4420` replays `4420`: only the digits must agree.
      if (existing.destination.replace(/^\+/, "") !== digits) {
        throw new ApiError("conflict", `uuid ${request.uuid} was authorized for another destination.`, [
          { param: "destination", message: "differs from the authorization stored for this uuid" },
        ]);
      }
      return { created: false, authorization: existing };
    }
    // call_uuids holds every stored call's (group, uuid): its primary key answers without reading calls.
    if (group.callId !== null)
      throw new ApiError(
        "conflict",
        `The call ${request.uuid} has already ended (its CDR is stored as call ${group.callId}).`,
        [{ param: "uuid", message: "already completed" }],
      );

    const limits = group.limits === null ? null : effectiveLimits(group.limits);
    const refuse = async (refusal: LimitRefusal) => {
      const refused = { uuid: request.uuid, destination: request.destination };
      await recordRefusal(tx, groupId, refused, refusal, limits?.disableOnFraud);
      return { refused: refusal };
    };
    if (limits) {
      const verdict = checkDestination(limits, digits);
      if (!verdict.ok)
        return refuse({
          code: verdict.code,
          limit: verdict.limit,
          limitValue: verdict.value,
          currentValue: digits,
          detail:
            verdict.code === "destination_blocked"
              ? `The account's limits block destinations starting with ${verdict.value}.`
              : `The account's limits allow only destinations starting with ${verdict.value}.`,
        });
    }

    const card = await getRateCard(tx, "sell", groupId, group.rateCardVersion);
    const rate = card?.match(digits) ?? null;
    if (!rate)
      throw new ApiError("no_rate", `No prefix of ${request.destination} is in the rate card of this billing group.`);

    if (group.disabled) {
      throw new ApiError(
        "insufficient_balance",
        "The billing group is disabled (by an operator, or its balance is at or below its credit limit).",
      );
    }
    // A reseller above the account that cannot pay for calls stops its whole subtree (docs "Reseller tiers").
    const [blocker] = group.blockedBy;
    if (blocker) {
      throw new ApiError(
        "insufficient_balance",
        `The reseller account ${blocker.id} that this account buys through ${tierReason[blocker.reason]}.`,
        group.blockedBy.map((t) => ({
          param: "billingGroupId",
          message: `the reseller account ${t.id} that this account buys through ${tierReason[t.reason]}`,
        })),
      );
    }
    const active = group.active;
    // Its subtree's holds at the account (a reseller's own call) use its balance as its own reservations do.
    const onBalance = group.balanceMicros + group.creditLimitMicros - active.totalMicros - group.heldMicros;
    let available = onBalance;
    let spendRefusal: LimitRefusal | null = null;
    const call = { digits, prefix: rate.prefix };
    if (limits) {
      const busy = concurrencyRefusal(limits, active.count);
      if (busy) return refuse(busy);
      const windowed = windowRefusal(limits, group.windows, call);
      if (windowed) return refuse(windowed);
      const spent = group.spent && spentOf(group.spent.today, group.spent.before);
      const spend = spendHeadroom(limits, spent, active.totalMicros);
      // The spend caps shorten the grant like the balance does; they refuse only when not one second fits them.
      if (spend && spend.headroom < available) {
        available = spend.headroom;
        spendRefusal = spend.refusal;
      }
    }
    const own = (s: number) => priceForSeconds(rate, s);
    const onBalanceSeconds = maxAffordableSeconds(own, onBalance, cap);
    if (onBalanceSeconds === 0)
      throw new ApiError(
        "insufficient_balance",
        `The available balance (balance + credit limit - active reservations) does not cover one second to ${request.destination}.`,
      );
    // Reservations at every tier (docs "Reseller tiers"): each ancestor rated at its own deck, as ingest will debit it;
    // the grant is the longest every tier's headroom covers. A tier without a rate for the call holds nothing.
    let seconds = onBalanceSeconds;
    const held = (await tierRates(tx, group.tiers, digits)).flatMap(({ tier, rate: r }) =>
      r ? [{ tier, rate: r }] : [],
    );
    for (const { tier, rate: r } of held) {
      const fits = maxAffordableSeconds((s) => priceForSeconds(r, s), tier.headroomMicros, seconds);
      if (fits === 0) {
        const reason = `the reseller account ${tier.id} that this account buys through has not enough headroom left for one second of this call`;
        throw new ApiError("insufficient_balance", `${reason[0].toUpperCase()}${reason.slice(1)}.`, [
          { param: "billingGroupId", message: reason },
        ]);
      }
      seconds = fits;
    }
    // The balance and every tier would grant a second: the spend cap is what refuses.
    if (spendRefusal) {
      seconds = maxAffordableSeconds(own, available, seconds);
      if (seconds === 0) return refuse(spendRefusal);
    }
    const reserved = priceForSeconds(rate, seconds + 1);
    const holds = held.map(({ tier, rate: r }) => ({
      tier: tier.id,
      depth: tier.depth,
      reserved: priceForSeconds(r, seconds + 1).toString(),
    }));
    const ttl = `${seconds + ttlMarginSeconds()} seconds`;
    // The admitting statement: the reservation, the velocity counters of the rules that are on, and the limits told
    // as hit re-armed (only right after a hit), all at the one clock_timestamp() read after the lock's.
    const alongside = [
      ...(holds.length > 0 ? [tierHoldsWrite(holds)] : []),
      ...(limits ? velocityWrites(groupId, limits, call) : []),
      ...(group.limitsHit ? [rearmLimitHits(groupId)] : []),
    ];
    const [row] = await queryRows<Row>(
      tx,
      sql`WITH c AS MATERIALIZED (SELECT clock_timestamp() AS at), a AS (
            INSERT INTO authorizations (billing_group_id, uuid, destination, from_number, matched_prefix, sell_rate_micros,
              increment_min, increment_interval, max_duration_seconds, reserved_micros, expires_at, created_at)
            SELECT ${groupId}, ${request.uuid}, ${request.destination}, ${request.from ?? null}, ${rate.prefix},
              ${rate.rateMicros.toString()}::bigint, ${rate.increment.min}, ${rate.increment.interval}, ${seconds},
              ${reserved.toString()}::bigint, c.at + ${ttl}::interval, c.at
            FROM c
            RETURNING *
          )${sql.join(
            alongside.map((w) => sql`, ${w}`),
            sql``,
          )}
          SELECT ${SELECT_COLUMNS} FROM a JOIN billing_groups g ON g.id = a.billing_group_id`,
    );
    return { created: true, authorization: toAuthorization(row) };
  });
  // Thrown after the commit, which kept the refusal's record and reserved nothing.
  if ("refused" in outcome) throw refusalError(outcome.refused);
  return outcome;
}
