import { sql, type SQL } from "drizzle-orm";
import { PgDialect, type AnyPgColumn } from "drizzle-orm/pg-core";
import { costViewOf, type CostView } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import { calls } from "@/lib/db/schema";
import { microsToNumber } from "@/lib/money/micros";
import { priceBilledSeconds } from "@/lib/money/charge";
import type { Call, CallDetail, CallDetailWithCost, CallWithCost } from "./schemas";
import type { StoredCall } from "./stored-call";

const iso = (d: Date) => d.toISOString();
const money = (m: bigint | null) => (m === null ? null : microsToNumber(m));

// ---- a reseller's own figures on a call (docs/contract.md §21, "Cost view by tier") ----

/** The call_tier_charges row of `tier` for the calls row in scope (none on the tier's own calls). */
const tierRow = (tier: string) =>
  sql`FROM call_tier_charges t WHERE t.billing_group_id = ${calls.billingGroupId} AND t.start_time = ${calls.startTime}
    AND t.call_id = ${calls.id} AND t.tier_group_id = ${tier}`;

/**
 * A tier's figures on a call as SQL over a calls row: `cost` what the tier pays its parent for it, `sell` what the
 * tier's child on the path to the call's account pays the tier (that child's own charge, or the call's price when the
 * child is the account), `rate` the tier's rate from its parent. Each by call_tier_charges' primary key.
 */
function tierSql(tier: string): { cost: SQL; sell: SQL; rate: SQL } {
  const childCharge = sql`(SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
    AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1)`;
  return {
    cost: sql`(SELECT t.price_micros ${tierRow(tier)})`,
    sell: sql`(SELECT CASE WHEN t.depth = 1 THEN ${calls.priceMicros} ELSE ${childCharge} END ${tierRow(tier)})`,
    rate: sql`(SELECT t.rate_micros ${tierRow(tier)})`,
  };
}

/** A tier's figures beside a calls row (int8 as text: exact on both engines); see tierColumns. */
export interface TierFigures {
  tierCost: string | null;
  tierSell: string | null;
  tierRate: string | null;
}

/**
 * The select fields serializeCall needs beside a calls row for this principal: a reseller's tier figures, nothing
 * for anyone else. `db.select({ ...getTableColumns(calls), ...tierColumns(p) }).from(calls)`.
 */
export function tierColumns(principal: Principal): Partial<Record<keyof TierFigures, SQL<string | null>>> {
  const view = costViewOf(principal);
  if (view.kind !== "tier") return {};
  const t = tierSql(view.tier);
  return {
    tierCost: sql<string | null>`${t.cost}::text`,
    tierSell: sql<string | null>`${t.sell}::text`,
    tierRate: sql<string | null>`${t.rate}::text`,
  };
}

const bigintOrNull = (text: string | null | undefined) => (text == null ? null : BigInt(text));

/** buyCost and margin by the cost view: the operator's over the carrier's cost, a tier's over its own charges. */
function costFigures(row: StoredCall & Partial<TierFigures>, view: CostView) {
  if (view.kind === "operator") {
    return {
      buyCost: money(row.buyCostMicros),
      // Subtract in micros, then format: exact, never a float difference.
      margin: row.buyCostMicros === null ? null : microsToNumber(row.priceMicros - row.buyCostMicros),
      supplierId: row.supplierId,
    };
  }
  const cost = bigintOrNull(row.tierCost);
  const sell = bigintOrNull(row.tierSell);
  return { buyCost: money(cost), margin: cost === null || sell === null ? null : microsToNumber(sell - cost) };
}

/**
 * THE one place a calls row becomes the API's Call (docs/contract.md §4). Cost-only fields are added only
 * for calls:read_cost principals, so they are absent (not null) everywhere else: JSON, CSV, portal. Which figures
 * they hold is the cost view's (lib/auth/cost-view.ts): a reseller's row carries its tierColumns.
 */
export function serializeCall(row: StoredCall & Partial<TierFigures>, principal: Principal): Call | CallWithCost {
  const call: Call = {
    id: String(row.id),
    uuid: row.uuid,
    direction: row.direction,
    from: row.fromNumber,
    to: row.toNumber,
    startTime: iso(row.startTime),
    endTime: iso(row.endTime),
    duration: row.duration,
    billDuration: row.billDuration,
    pdd: row.pddMs === null ? null : row.pddMs / 1000,
    hangupCause: row.hangupCause,
    q850Cause: row.q850Cause,
    readCodec: row.readCodec,
    writeCodec: row.writeCodec,
    price: microsToNumber(row.priceMicros),
    currency: row.currency,
    recordingUrl: row.recordingUrl,
    billingGroupId: row.billingGroupId,
    rated: row.rated,
  };
  const view = costViewOf(principal);
  if (view.kind === "none") return call;
  return { ...call, ...costFigures(row, view) };
}

// ---- the same Call, built by the database (the listing's hot path) ----

/** An instant as Date#toISOString writes it (the column holds milliseconds: precision 3). */
const isoSql = (column: AnyPgColumn) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/**
 * Micros as the decimal number microsToNumber gives: multiplying by 10^-6 is exact in numeric (no rounding, unlike
 * a division), trim_scale drops the trailing zeros. Above 15 significant digits the text stays exact where the JS
 * number would print the nearest double; a JSON reader gets that same double from either.
 */
const moneySql = (micros: SQL) => sql`trim_scale(${micros}::numeric * 0.000001)`;

/** serializeCall's fields, in its order, as SQL over a calls row: `satisfies` keeps the keys exactly Call's. */
const CALL_FIELDS = {
  id: sql`${calls.id}::text`,
  uuid: sql`${calls.uuid}`,
  direction: sql`${calls.direction}`,
  from: sql`${calls.fromNumber}`,
  to: sql`${calls.toNumber}`,
  startTime: isoSql(calls.startTime),
  endTime: isoSql(calls.endTime),
  duration: sql`${calls.duration}`,
  billDuration: sql`${calls.billDuration}`,
  pdd: sql`trim_scale(${calls.pddMs} * 0.001)`,
  hangupCause: sql`${calls.hangupCause}`,
  q850Cause: sql`${calls.q850Cause}`,
  readCodec: sql`${calls.readCodec}`,
  writeCodec: sql`${calls.writeCodec}`,
  price: moneySql(sql`${calls.priceMicros}`),
  currency: sql`${calls.currency}`,
  recordingUrl: sql`${calls.recordingUrl}`,
  billingGroupId: sql`${calls.billingGroupId}`,
  rated: sql`${calls.rated}`,
} satisfies Record<keyof Call, SQL>;

const COST_FIELDS = {
  buyCost: moneySql(sql`${calls.buyCostMicros}`),
  margin: moneySql(sql`(${calls.priceMicros}::numeric - ${calls.buyCostMicros})`),
  supplierId: sql`${calls.supplierId}`,
} satisfies Record<Exclude<keyof CallWithCost, keyof Call>, SQL>;

const dialect = new PgDialect();
/** Rendered to text once: Drizzle rebuilding these ~60 chunks was ~3% of a listing request's CPU. */
function selectList(fields: Record<string, SQL>): SQL {
  const list = sql.join(
    Object.entries(fields).map(([key, value]) => sql`${value} AS ${sql.identifier(key)}`),
    sql`, `,
  );
  const { sql: text, params } = dialect.sqlToQuery(list);
  if (params.length > 0) throw new Error("a call JSON column must not take parameters");
  return sql.raw(text);
}
const CALL_SELECT = selectList(CALL_FIELDS);
const CALL_WITH_COST_SELECT = selectList({ ...CALL_FIELDS, ...COST_FIELDS });

/** COST_FIELDS for a reseller: its own tier's figures, no supplier. Parameterised by the tier: built per request. */
function tierCostFields(tier: string): SQL {
  const t = tierSql(tier);
  return sql`${moneySql(t.cost)} AS "buyCost", ${moneySql(sql`(${t.sell}::numeric - ${t.cost})`)} AS "margin"`;
}

/**
 * serializeCall as a select list over `calls` (the cost fields, by the same rule, only for calls:read_cost):
 * `SELECT row_to_json(c)::text FROM (SELECT ${callJsonColumns(p)} FROM calls ...) c` gives each call as the
 * text JSON.stringify(serializeCall(row, p)) gives, byte for byte (list-calls-json.test.ts holds them equal on
 * both engines). The listing sends it as is: no row decoding, no objects, no stringify per call.
 */
export function callJsonColumns(principal: Principal): SQL {
  const view = costViewOf(principal);
  if (view.kind === "tier") return sql`${CALL_SELECT}, ${tierCostFields(view.tier)}`;
  return view.kind === "operator" ? CALL_WITH_COST_SELECT : CALL_SELECT;
}

/** The parts of a rated call's price, recomputed from what rated it with the same pure billing math. */
function priceParts(row: StoredCall) {
  const parts =
    row.rated && row.sellRateMicros !== null
      ? priceBilledSeconds(row.sellRateMicros, row.billDuration, {
          connectFeeMicros: row.connectFeeMicros,
          minChargeMicros: row.minChargeMicros,
        })
      : null;
  return {
    connectFee: money(row.connectFeeMicros),
    minCharge: money(row.minChargeMicros),
    usageCharge: parts && microsToNumber(parts.usageMicros),
    minChargeApplied: parts?.minChargeApplied ?? false,
  };
}

/** GET /v1/calls/{id} (and the ingest answer): the list fields plus the detail of docs/contract.md §4. */
export function serializeCallDetail(
  row: StoredCall & Partial<TierFigures>,
  principal: Principal,
): CallDetail | CallDetailWithCost {
  const detail = {
    ...serializeCall(row, principal),
    accountcode: row.accountcode,
    networkAddr: row.networkAddr,
    answerTime: row.answerTime === null ? null : iso(row.answerTime),
    matchedPrefix: row.matchedPrefix,
    sellRate: money(row.sellRateMicros),
    billingIncrement:
      row.incrementMin === null || row.incrementInterval === null
        ? null
        : `${row.incrementMin}/${row.incrementInterval}`,
    ...priceParts(row),
  };
  const view = costViewOf(principal);
  if (view.kind === "none") return detail;
  const buyRate = view.kind === "operator" ? money(row.buyRateMicros) : money(bigintOrNull(row.tierRate));
  return { ...(detail as CallDetailWithCost), buyRate };
}
