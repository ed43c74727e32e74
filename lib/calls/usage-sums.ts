import { sql, type SQL } from "drizzle-orm";
import { alias as tableAlias } from "drizzle-orm/pg-core";
import { queryRows, type Executor } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import { FIRST_INSTANT, LAST_INSTANT } from "@/lib/http/query-params";
import { callMatchConditions, type CallFilters } from "./list-calls";

// The sums of calls behind GET /v1/usage (and the background export's estimate), as CallReads.usageSums answers them
// from this database: the usage rollups (usage_hourly, usage_quarter, usage_daily) for whole buckets, calls for the
// rest. The rollups are written only by the triggers on calls declared in lib/usage/triggers.ts, in the transaction
// that writes the calls; nothing here writes them. The report's scope, labels and JSON are lib/usage's.

/** What a report sums by: the groupBy values of GET /v1/usage (lib/usage/schemas.ts USAGE_GROUP_BY). */
export type SumsGroupBy = "day" | "month" | "destination" | "direction" | "hangupCause" | "account" | "supplier";

/** The sums of one key (and currency) of a report: exact, bigint micro-units. */
export interface UsageSums {
  key: string | null;
  label: string | null;
  currency: string;
  calls: bigint;
  answeredCalls: bigint;
  unratedCalls: bigint;
  billedSeconds: bigint;
  priceMicros: bigint;
  buyCostMicros: bigint;
  marginMicros: bigint;
}

/** One report's question: its calls (the filters, within one group or every group), keyed by groupBy in timeZone. */
export interface UsageSumsRequest {
  groupBy: SumsGroupBy;
  /** IANA zone of day/month buckets, one the database knows (the caller checks). */
  timeZone: string;
  filters: CallFilters;
  /**
   * The billing groups read (one: a bound key's or the `account` named; several: a reseller's subtree), or null:
   * every group (a platform key without `account`).
   */
  groups: readonly string[] | null;
  /**
   * A reseller's cost view (lib/auth/cost-view.ts): buy cost and margin are this tier's own, summed over its
   * call_tier_charges rows (what it pays its parent; what its child on the path pays it, minus that), not the
   * carrier's. Absent: the operator's (calls.buy_cost_micros).
   */
  tier?: string;
  /**
   * `groups` are exactly this account and every descendant of it (a reseller's whole reach, no account named): whole
   * buckets are then read from its own usage rollups plus its tier rollups (tier_usage_hourly/quarter/daily, migration
   * 0035), which hold the whole subtree's figures by tier, instead of each descendant's rows (docs/contract.md
   * "Reseller tiers", "Usage by tier"). By account: tier_account_usage_monthly and _weekly (migration 0040) for whole
   * months and weeks, tier_account_usage_daily (0039) for the days around them; with a direction or cause asked, the
   * per-account usage rows and tier_account_usage_hourly.
   */
  subtree?: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** The weeks of tier_account_usage_weekly (migration 0040): UTC, Monday to Monday, counted from Monday 2000-01-03. */
const WEEK_ORIGIN_MS = Date.UTC(2000, 0, 3);
const weekStart = (ms: number) => WEEK_ORIGIN_MS + Math.floor((ms - WEEK_ORIGIN_MS) / WEEK_MS) * WEEK_MS;
/** The start of the UTC month `ms` is in, or of the next one (setUTCFullYear: Date.UTC reads years 0-99 as 19xx). */
function monthStart(ms: number, next = false): number {
  const d = new Date(ms);
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + (next ? 1 : 0), 1);
  return start.getTime();
}

/**
 * Which instants come from a rollup and which from calls. A rollup holds whole UTC hours (or days): every
 * bucket inside [gte, lte] is read there, the partial buckets at the two ends from calls (index on group +
 * start_time). `to` cannot be answered from a rollup (a substring of the number), so with `to` everything
 * is read from calls: the slow path (group-scoped keyset index plus the trigram index).
 */
export interface UsagePlan {
  /** Rollup buckets b with from <= b < until (either bound absent = open); undefined: no rollup at all. */
  rollup?: { from?: Date; until?: Date };
  /** Inclusive ranges of start_time read from calls. */
  callRanges: { gte?: Date; lte?: Date }[];
}

/** Filters about single numbers or calls, and the supplier filter (usage_hourly has no supplier), which no rollup holds. */
export function needsCalls(filters: CallFilters): boolean {
  return Boolean(
    filters.to ||
    filters.toPrefix ||
    filters.fromPrefix ||
    filters.id !== undefined ||
    filters.uuid ||
    filters.supplierId,
  );
}

export function planUsage(filters: CallFilters, grainMs: number = HOUR_MS): UsagePlan {
  const { startTimeGte: gte, startTimeLte: lte } = filters;
  if (needsCalls(filters)) return { callRanges: [{ gte, lte }] };
  // First whole bucket at or after gte; end of the last whole bucket that ends at or before lte (start_time has
  // ms precision, so a bucket [b, b + grain) is inside when b + grain <= lte + 1 ms). UTC hours and days are
  // whole multiples of the epoch.
  const from = gte ? new Date(Math.ceil(gte.getTime() / grainMs) * grainMs) : undefined;
  const until = lte ? new Date(Math.floor((lte.getTime() + 1) / grainMs) * grainMs) : undefined;
  if (from && until && from >= until) return { callRanges: [{ gte, lte }] };
  const callRanges: UsagePlan["callRanges"] = [];
  if (gte && from && gte < from) callRanges.push({ gte, lte: new Date(from.getTime() - 1) });
  if (lte && until && until <= lte) callRanges.push({ gte: until, lte });
  return { rollup: { from, until }, callRanges };
}

/**
 * The sums of the calls of `request.groups` matching `request.filters`, per `groupBy` key and currency; exact
 * (bigint micro-units summed in SQL as numeric, read as text). Sources, chosen so a 90-day report reads
 * thousands of rollup rows, not the calls (triggers keep the rollups in step with calls in the ingest
 * transaction: lib/usage/triggers.ts):
 * - day, month, direction, hangupCause, account: usage_hourly for whole UTC hours, calls for the partial
 *   hours at the range ends. Day and month buckets: whole-hour zones (DST included) never cut an hour, so
 *   a local day is a sum of UTC hours. An hour that a local midnight cuts (zones at :30/:45 such as
 *   Asia/Kolkata, Asia/Kathmandu) is read from usage_quarter (15 minutes), and a quarter that is still cut
 *   (no zone today) from calls.
 * - destination, supplier: usage_daily for whole UTC days, calls for the partial days at the range ends.
 *   With a hangupCause filter (not a dimension of usage_daily) they are read from calls: slow path.
 * - any `to`, `toPrefix`, `from`, `id`, `uuid` or `supplierId` filter: calls only (slow path; the indexes of
 *   GET /v1/calls).
 */
export async function readUsageSums(
  db: Executor,
  request: UsageSumsRequest,
  elsewhere: readonly ElsewhereSums[] = [],
): Promise<UsageSums[]> {
  const report = usageReport(request);
  const sources = usageSources(report, readPlan(report));
  if (elsewhere.length > 0) sources.parts.push(elsewherePart(report, elsewhere));
  const rows = await runUsageQuery(db, usageQuery(report, sources));
  return rows.map(toUsageSums);
}

/**
 * The ranges of start_time a report reads from calls (every other instant is a rollup's): another store of calls (the
 * history tier) sums its own calls of these ranges and hands them to readUsageSums as `elsewhere`.
 */
export function usageCallRanges(request: UsageSumsRequest): UsagePlan["callRanges"] {
  return readPlan(usageReport(request)).callRanges;
}

/**
 * Sums of calls held by another store, within usageCallRanges and matching the report's groups and filters, grouped
 * by the raw columns a report keys on (the others null): `startTime` the start of the call's 15 minutes (day and
 * month; every zone's offset is a whole number of quarters, so a quarter's calls share their local day), then
 * matched prefix, direction, hangup cause (as stored), group, supplier, currency. Figures as decimal text.
 */
export interface ElsewhereSums {
  startTime: string | null;
  matchedPrefix: string | null;
  direction: string | null;
  hangupCause: string | null;
  billingGroupId: string;
  supplierId: string | null;
  currency: string;
  calls: string;
  answered: string;
  unrated: string;
  billed: string;
  price: string;
  buyCost: string;
  margin: string;
}

/** One report being built: the request, resolved once, that every step below reads. */
interface UsageReportSpec extends UsageSumsRequest {
  /** destination and supplier: read from usage_daily (whole UTC days) instead of usage_hourly. */
  daily: boolean;
  /** day and month: keyed by the local day or month of `timeZone`. */
  isTime: boolean;
  /** The subtree's root whose tier rollups answer the whole buckets (see UsageSumsRequest.subtree), if they can. */
  bySubtree?: string;
}

function usageReport(request: UsageSumsRequest): UsageReportSpec {
  const { groupBy, filters } = request;
  const rootView = !request.tier || request.tier === request.subtree;
  // By account over the whole subtree, no direction or cause asked: whole UTC days (months, weeks), accountSubtreeParts.
  const accountDaily =
    groupBy === "account" && Boolean(request.subtree) && rootView && !filters.direction && !filters.hangupCause;
  const daily = groupBy === "destination" || groupBy === "supplier" || accountDaily;
  // The tier rollups have no supplier, an account only per day, and hold the subtree root's own cost view only.
  const subtreeCan = (groupBy !== "account" || accountDaily) && groupBy !== "supplier" && rootView;
  return {
    ...request,
    daily,
    isTime: groupBy === "day" || groupBy === "month",
    bySubtree: subtreeCan ? request.subtree : undefined,
  };
}

/** Which instants the rollup answers and which the calls (see planUsage). */
function readPlan(report: UsageReportSpec): UsagePlan {
  const { filters, daily } = report;
  return daily && filters.hangupCause
    ? { callRanges: [{ gte: filters.startTimeGte, lte: filters.startTimeLte }] }
    : planUsage(filters, daily ? DAY_MS : HOUR_MS);
}

// ---- SQL over a rollup (`u`) or calls (`c`) ----

type Alias = "u" | "c";
/** `calls c` of the queries below, for the listing's conditions. */
const callsAlias = tableAlias(calls, "c");
const aliasSql = (alias: Alias) => sql.raw(alias);

const groupCondition = (report: UsageReportSpec, alias: Alias) =>
  report.groups === null || (alias === "u" && report.bySubtree)
    ? sql`true`
    : report.groups.length === 1
      ? sql`${aliasSql(alias)}.billing_group_id = ${report.groups[0]}`
      : sql`${aliasSql(alias)}.billing_group_id IN (${sql.join(
          report.groups.map((g) => sql`${g}`),
          sql`, `,
        )})`;
/** The one group a report reads, else null (callMatchConditions' uuid lookup). */
const oneGroup = (report: UsageReportSpec) => (report.groups?.length === 1 ? report.groups[0] : null);

function dimensionFilters(report: UsageReportSpec, alias: Alias): SQL {
  const { filters } = report;
  const a = aliasSql(alias);
  const parts: SQL[] = [];
  if (filters.direction) parts.push(sql`${a}.direction = ${filters.direction}`);
  // usage_hourly/quarter store upper(hangup_cause), the expression of the calls filter and index; usage_daily
  // is never read with this filter.
  if (filters.hangupCause) parts.push(sql`upper(${a}.hangup_cause) = upper(${filters.hangupCause})`);
  // The listing's own conditions for the filters no rollup holds (see needsCalls).
  if (alias === "c") parts.push(...callMatchConditions(filters, callsAlias, oneGroup(report)));
  return parts.length ? sql.join(parts, sql` AND `) : sql`true`;
}

/** Local day or month start as a timestamp; formatted once per output row at the end (to_char per hour cost 10x). */
const timeKey = (report: UsageReportSpec, t: SQL) =>
  sql`date_trunc(${report.groupBy === "month" ? "month" : "day"}, (${t}) AT TIME ZONE ${report.timeZone})`;

const formatKey = (report: UsageReportSpec, k: SQL) =>
  report.isTime ? sql`to_char(${k}, ${report.groupBy === "day" ? "YYYY-MM-DD" : "YYYY-MM"})` : k;

/** Key of a row; `g` carries the billing group where the label needs it (destination descriptions are per card). */
function rowKey(report: UsageReportSpec, alias: Alias): { key: SQL; g: SQL } {
  const x = aliasSql(alias);
  switch (report.groupBy) {
    case "day":
    case "month":
      return { key: timeKey(report, alias === "u" ? sql`u.hour` : sql`c.start_time`), g: sql`NULL::text` };
    case "destination":
      return { key: sql`${x}.matched_prefix`, g: sql`${x}.billing_group_id` };
    case "direction":
      return { key: sql`${x}.direction`, g: sql`NULL::text` };
    case "hangupCause":
      return { key: sql`upper(${x}.hangup_cause)`, g: sql`NULL::text` };
    case "account":
      return { key: sql`${x}.billing_group_id`, g: sql`NULL::text` };
    case "supplier":
      return { key: sql`${x}.supplier_id`, g: sql`NULL::text` };
  }
}

const CALL_COUNTS = sql`count(*) AS calls, count(c.answer_time) AS answered, count(*) FILTER (WHERE NOT c.rated) AS unrated,
    sum(c.bill_duration) AS billed, sum(c.price_micros) AS price`;
const ROLLUP_COUNTS = sql`sum(u.calls) AS calls, sum(u.answered_calls) AS answered, sum(u.unrated_calls) AS unrated,
    sum(u.billed_seconds) AS billed, sum(u.price_micros) AS price`;
/** A tier's report takes no cost from calls or the usage rollups: its own comes from tierPart. */
const NO_COST = sql`0::numeric AS buy_cost, 0::numeric AS margin`;
const callSums = (report: UsageReportSpec) =>
  sql`${CALL_COUNTS}, ${
    report.tier
      ? NO_COST
      : sql`sum(coalesce(c.buy_cost_micros, 0)) AS buy_cost,
    sum(c.price_micros - c.buy_cost_micros) FILTER (WHERE c.buy_cost_micros IS NOT NULL) AS margin`
  }`;
/** A subtree's rollup rows carry the tier's own cost already (rollupSource); a tier's other rows none. */
const rollupSums = (report: UsageReportSpec) =>
  sql`${ROLLUP_COUNTS}, ${report.tier && !report.bySubtree ? NO_COST : sql`sum(u.buy_cost_micros) AS buy_cost, sum(u.margin_micros) AS margin`}`;

type Grain = "hourly" | "quarter" | "daily";
const GRAIN_COLUMNS: Record<Grain, string> = {
  hourly: "hour, direction, hangup_cause",
  quarter: "quarter, direction, hangup_cause",
  daily: "day, direction, matched_prefix",
};

/**
 * The rollup a part reads, aliased u: usage_<grain>, or for a subtree (report.bySubtree) its root's own rows there
 * (no cost of its own on its own calls) beside its tier rows in tier_usage_<grain> (every descendant's calls, the
 * root's cost and margin on them), both as the root's (so destination labels are the root's deck's). Without a cost
 * view the tier's cost is left out.
 */
function rollupSource(report: UsageReportSpec, grain: Grain): SQL {
  const root = report.bySubtree;
  if (!root) return sql.raw(`usage_${grain} u`);
  const columns = sql.raw(`${GRAIN_COLUMNS[grain]}, ${grain === "daily" ? "NULL::text AS supplier_id, " : ""}currency,
      calls, answered_calls, unrated_calls, billed_seconds, price_micros`);
  const cost = report.tier
    ? sql`buy_cost_micros, margin_micros`
    : sql`0::bigint AS buy_cost_micros, 0::bigint AS margin_micros`;
  const own =
    grain === "daily" ? sql.raw("day, direction, matched_prefix, supplier_id") : sql.raw(GRAIN_COLUMNS[grain]);
  return sql`(SELECT billing_group_id, ${own}, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros,
        0::bigint AS buy_cost_micros, 0::bigint AS margin_micros FROM ${sql.raw(`usage_${grain}`)} WHERE billing_group_id = ${root}
      UNION ALL
      SELECT tier_group_id AS billing_group_id, ${columns}, ${cost} FROM ${sql.raw(`tier_usage_${grain}`)} WHERE tier_group_id = ${root}) u`;
}

type BucketRange = NonNullable<UsagePlan["rollup"]>;

/**
 * Whole UTC weeks (tier_account_usage_weekly's) inside a range of whole UTC days, and the days around them.
 */
export function splitWeeks(days: BucketRange): { weeks?: BucketRange; days: BucketRange[] } {
  const from = days.from && new Date(weekStart(days.from.getTime() + WEEK_MS - 1));
  const until = days.until && new Date(weekStart(days.until.getTime()));
  return splitAround<{ weeks?: BucketRange; days: BucketRange[] }>(
    days,
    from,
    until,
    (weeks, around) => ({ weeks, days: around }),
    { days: [days] },
  );
}

/**
 * Whole UTC months (tier_account_usage_monthly's) inside a range of whole UTC days, then the whole weeks of what is
 * left, then its days: a report by account over a subtree reads one row per account and month, week or day.
 */
export function splitMonths(days: BucketRange): { months?: BucketRange; weeks: BucketRange[]; days: BucketRange[] } {
  const rest = (ranges: BucketRange[]) => {
    const split = ranges.map(splitWeeks);
    return { weeks: split.flatMap((s) => (s.weeks ? [s.weeks] : [])), days: split.flatMap((s) => s.days) };
  };
  const from = days.from && new Date(monthStart(days.from.getTime() - 1, true));
  const until = days.until && new Date(monthStart(days.until.getTime()));
  return splitAround(days, from, until, (months, around) => ({ months, ...rest(around) }), rest([days]));
}

/** [from, until) inside `days` when it holds at least one whole bucket, and the ranges around it; else `none`. */
function splitAround<T>(
  days: BucketRange,
  from: Date | undefined,
  until: Date | undefined,
  split: (inside: BucketRange, around: BucketRange[]) => T,
  none: T,
): T {
  // No bucket past the instants a filter may name (years 0001..9999 are what SQL reads from toISOString()).
  const outside = (from && from.getTime() > LAST_INSTANT) || (until && until.getTime() < FIRST_INSTANT);
  if (outside || (from && until && from >= until)) return none;
  const around: BucketRange[] = [];
  if (days.from && from && days.from < from) around.push({ from: days.from, until: from });
  if (days.until && until && until < days.until) around.push({ from: until, until: days.until });
  return split({ from, until }, around);
}

/**
 * By account over a subtree (whole UTC days): the root's own calls from its usage_daily rows (no cost of its own),
 * every descendant's under its own account from tier_account_usage_monthly and _weekly (migration 0040) for whole
 * months and weeks and tier_account_usage_daily (0039) for the days around them, with the root's cost and margin when
 * the report has the cost view. Each table is grouped on its own (a grouping over their UNION ALL was slower).
 */
function accountSubtreeParts(report: UsageReportSpec, root: string, rollup: BucketRange): SQL[] {
  const cost = report.tier ? sql`sum(u.buy_cost_micros) AS buy_cost, sum(u.margin_micros) AS margin` : NO_COST;
  const BUCKET = { month: "u.month", week: "u.week", day: "u.day" } as const;
  const part = (table: string, bucket: keyof typeof BUCKET, r: BucketRange) =>
    sql`SELECT u.billing_group_id AS key, NULL::text AS g, u.currency, ${ROLLUP_COUNTS}, ${cost}
      FROM ${sql.raw(table)} u WHERE u.tier_group_id = ${root} AND ${bucketRange(sql.raw(BUCKET[bucket]), r)}
      GROUP BY 1, 2, 3`;
  const { months, weeks, days } = splitMonths(rollup);
  return [
    sql`SELECT u.billing_group_id AS key, NULL::text AS g, u.currency, ${ROLLUP_COUNTS}, ${NO_COST}
      FROM usage_daily u WHERE u.billing_group_id = ${root} AND ${bucketRange(sql`u.day`, rollup)} GROUP BY 1, 2, 3`,
    ...(months ? [part("tier_account_usage_monthly", "month", months)] : []),
    ...weeks.map((r) => part("tier_account_usage_weekly", "week", r)),
    ...days.map((r) => part("tier_account_usage_daily", "day", r)),
  ];
}

const FIGURES = sql`calls, answered, unrated, billed, price, buy_cost, margin`;

/** The buckets b of a rollup range: from <= b < until (either bound absent = open). */
const bucketRange = (bucket: SQL, r: BucketRange) =>
  sql`${r.from ? sql`${bucket} >= ${r.from.toISOString()}::timestamptz` : sql`true`}
      AND ${r.until ? sql`${bucket} < ${r.until.toISOString()}::timestamptz` : sql`true`}`;

const range = (column: SQL, r: { gte?: Date; lte?: Date }) =>
  sql`${r.gte ? sql`${column} >= ${r.gte.toISOString()}::timestamptz` : sql`true`} AND ${r.lte ? sql`${column} <= ${r.lte.toISOString()}::timestamptz` : sql`true`}`;

// ---- the parts of the report: SELECTs of (key, g, currency, figures), UNION ALL'ed ----

interface UsageSources {
  /** Common table expressions the parts read (the time rollups'). */
  ctes: SQL[];
  parts: SQL[];
}

function usageSources(report: UsageReportSpec, plan: UsagePlan): UsageSources {
  const sources: UsageSources = { ctes: [], parts: callRangeParts(report, plan.callRanges) };
  if (plan.rollup) {
    if (report.isTime) timeRollupSources(report, plan.rollup, sources);
    else if (report.bySubtree && report.groupBy === "account")
      sources.parts.push(...accountSubtreeParts(report, report.bySubtree, plan.rollup));
    else sources.parts.push(dimensionRollupPart(report, plan.rollup));
  }
  // A tier's cost of whole buckets is in the rollups: a subtree's in its rollup rows, a report by account, direction or
  // hangup cause in tier_account_usage_hourly (tierRollupPart). The rest (every instant, when no rollup) per charge.
  const byTierRollup = Boolean(plan.rollup && report.tier && !report.bySubtree && !report.daily && !report.isTime);
  if (byTierRollup) sources.parts.push(tierRollupPart(report, report.tier!, plan.rollup!));
  const tierRanges =
    report.bySubtree || byTierRollup
      ? plan.callRanges
      : [{ gte: report.filters.startTimeGte, lte: report.filters.startTimeLte }];
  if (report.tier) sources.parts.push(...tierRanges.map((r) => tierPart(report, report.tier!, r)));
  return sources;
}

/**
 * A tier's buy cost and margin over whole UTC hours by account, direction or hangup cause (the reseller's report by
 * customer over its subtree): tier_account_usage_hourly (migration 0039), the same figures tierPart sums per charge.
 * Counts come from the other parts.
 */
function tierRollupPart(report: UsageReportSpec, tier: string, rollup: NonNullable<UsagePlan["rollup"]>): SQL {
  const u = rowKey(report, "u");
  return sql`SELECT ${u.key} AS key, ${u.g} AS g, u.currency, 0::bigint AS calls, 0::bigint AS answered, 0::bigint AS unrated,
      0::numeric AS billed, 0::numeric AS price, sum(u.buy_cost_micros) AS buy_cost, sum(u.margin_micros) AS margin
    FROM tier_account_usage_hourly u WHERE u.tier_group_id = ${tier} AND ${rollupWhere(report, rollup)} GROUP BY 1, 2, 3`;
}

/**
 * A tier's buy cost and margin over the report's calls (docs/contract.md "Reseller tiers", "Usage by tier"): its own
 * call_tier_charges rows (index on tier + start time), each beside its call (for the key and the filters) and the
 * charge of the tier below it on the path (depth - 1), or the call's price when the call's account is its child. The
 * tier's own calls have no row of its own: no cost there, as on the call's JSON. Counts come from the other parts.
 * The child's charge is a subquery run only for depth > 1 (a LEFT JOIN probed it for every row: 3 s instead of 0.8 s
 * over 200k charges, EXPLAIN ANALYZE). Read over `r`: the ragged ends of a subtree's report (its whole buckets are the
 * tier rollups'), or the whole range of a report by account or of one named account.
 */
function tierPart(report: UsageReportSpec, tier: string, r: { gte?: Date; lte?: Date }): SQL {
  const c = rowKey(report, "c");
  const { gte, lte } = r;
  return sql`SELECT ${c.key} AS key, ${c.g} AS g, c.currency, 0::bigint AS calls, 0::bigint AS answered, 0::bigint AS unrated,
      0::numeric AS billed, 0::numeric AS price, sum(t.price_micros) AS buy_cost,
      sum(CASE WHEN t.depth = 1 THEN c.price_micros
        ELSE (SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1) END - t.price_micros) AS margin
    FROM call_tier_charges t
    JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id
    WHERE t.tier_group_id = ${tier} AND ${groupCondition(report, "c")} AND ${range(sql`t.start_time`, { gte, lte })}
      AND ${dimensionFilters(report, "c")}
    GROUP BY 1, 2, 3`;
}

/** The instants read from calls: one grouped SELECT per range. */
function callRangeParts(report: UsageReportSpec, ranges: UsagePlan["callRanges"]): SQL[] {
  const c = rowKey(report, "c");
  return ranges.map(
    (r) => sql`SELECT ${c.key} AS key, ${c.g} AS g, c.currency, ${callSums(report)}
      FROM calls c WHERE ${groupCondition(report, "c")} AND ${range(sql`c.start_time`, r)} AND ${dimensionFilters(report, "c")}
      GROUP BY 1, 2, 3`,
  );
}

/** The rollup rows of the whole buckets in the plan's rollup range, for the report's group and filters. */
function rollupWhere(report: UsageReportSpec, rollup: NonNullable<UsagePlan["rollup"]>): SQL {
  const bucket = sql.raw(report.daily ? "u.day" : "u.hour");
  return sql`${groupCondition(report, "u")} AND ${bucketRange(bucket, rollup)} AND ${dimensionFilters(report, "u")}`;
}

/** direction, hangupCause, account (usage_hourly) and destination, supplier (usage_daily): one grouped SELECT. */
function dimensionRollupPart(report: UsageReportSpec, rollup: NonNullable<UsagePlan["rollup"]>): SQL {
  const u = rowKey(report, "u");
  return sql`SELECT ${u.key} AS key, ${u.g} AS g, u.currency, ${rollupSums(report)}
        FROM ${rollupSource(report, report.daily ? "daily" : "hourly")} WHERE ${rollupWhere(report, rollup)} GROUP BY 1, 2, 3`;
}

/**
 * day and month: sum per hour first (24 x days x currencies rows at most), then bucket: the zone conversion runs per
 * hour, not per rollup row. An hour whose start and last instant fall in different buckets is cut: its quarters are
 * read instead, and a quarter that is still cut is read from calls.
 */
function timeRollupSources(
  report: UsageReportSpec,
  rollup: NonNullable<UsagePlan["rollup"]>,
  sources: UsageSources,
): void {
  const c = rowKey(report, "c");
  const cut = (t: SQL, length: string) =>
    sql`${timeKey(report, sql`${t} + interval '${sql.raw(length)}' - interval '1 microsecond'`)} <> ${timeKey(report, t)}`;
  sources.ctes.push(
    sql`hourly AS MATERIALIZED (SELECT u.hour AS t, u.currency, ${rollupSums(report)} FROM ${rollupSource(report, "hourly")} WHERE ${rollupWhere(report, rollup)} GROUP BY 1, 2)`,
    sql`hourly_keyed AS MATERIALIZED (SELECT hourly.*, ${timeKey(report, sql`hourly.t`)} AS key, ${cut(sql`hourly.t`, "1 hour")} AS cut FROM hourly)`,
    // LATERAL: one index range per cut hour (or quarter). As a plain join the planner, which cannot know the cut
    // set is small or empty, sorted the whole calls table instead (2.7 s at 1M calls, EXPLAIN ANALYZE).
    sql`quarterly AS MATERIALIZED (
          SELECT x.* FROM (SELECT DISTINCT t FROM hourly_keyed WHERE cut) AS h
          CROSS JOIN LATERAL (
            SELECT u.quarter AS t, u.currency, ${rollupSums(report)} FROM ${rollupSource(report, "quarter")}
            WHERE ${groupCondition(report, "u")} AND u.quarter >= h.t AND u.quarter < h.t + interval '1 hour' AND ${dimensionFilters(report, "u")}
            GROUP BY 1, 2
          ) AS x)`,
    sql`quarterly_keyed AS MATERIALIZED (SELECT quarterly.*, ${timeKey(report, sql`quarterly.t`)} AS key, ${cut(sql`quarterly.t`, "15 minutes")} AS cut FROM quarterly)`,
  );
  sources.parts.push(
    sql`SELECT key, NULL::text AS g, currency, ${FIGURES} FROM hourly_keyed WHERE NOT cut`,
    sql`SELECT key, NULL::text AS g, currency, ${FIGURES} FROM quarterly_keyed WHERE NOT cut`,
    sql`SELECT x.* FROM (SELECT DISTINCT t FROM quarterly_keyed WHERE cut) AS q
        CROSS JOIN LATERAL (
          SELECT ${c.key} AS key, NULL::text AS g, c.currency, ${callSums(report)} FROM calls c
          WHERE ${groupCondition(report, "c")} AND c.start_time >= q.t AND c.start_time < q.t + interval '15 minutes' AND ${dimensionFilters(report, "c")}
          GROUP BY 1, 2, 3
        ) AS x`,
  );
}

/**
 * The sums of another store's calls as one more part, keyed by the same expressions as a calls part (rowKey over a
 * record set aliased `c`), so keys, labels and zones are this database's. One parameter (JSON), whatever its size.
 */
function elsewherePart(report: UsageReportSpec, rows: readonly ElsewhereSums[]): SQL {
  const c = rowKey(report, "c");
  const records = rows.map((r) => ({
    start_time: r.startTime,
    matched_prefix: r.matchedPrefix,
    direction: r.direction,
    hangup_cause: r.hangupCause,
    billing_group_id: r.billingGroupId,
    supplier_id: r.supplierId,
    currency: r.currency,
    calls: r.calls,
    answered: r.answered,
    unrated: r.unrated,
    billed: r.billed,
    price: r.price,
    buy_cost: r.buyCost,
    margin: r.margin,
  }));
  // Another store's cost is the operator's (the calls' buy cost): never a tier's, whose own comes from tierPart.
  const cost = report.tier ? sql`0::numeric AS buy_cost, 0::numeric AS margin` : sql`c.buy_cost, c.margin`;
  return sql`SELECT ${c.key} AS key, ${c.g} AS g, c.currency, c.calls, c.answered, c.unrated, c.billed, c.price, ${cost}
    FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS c(start_time timestamptz, matched_prefix text,
      direction text, hangup_cause text, billing_group_id text, supplier_id text, currency text, calls numeric,
      answered numeric, unrated numeric, billed numeric, price numeric, buy_cost numeric, margin numeric)`;
}

// ---- the report's query, its run and its rows ----

/** The label of a key: destination description, account name, supplier name; none for the other dimensions. */
function labelOf(groupBy: SumsGroupBy): SQL {
  switch (groupBy) {
    case "destination":
      // An aggregate, so the lookup stays one value should a group ever hold a prefix more than once (dated decks).
      return sql`(SELECT min(r.description) FROM sell_rates r WHERE r.billing_group_id = p.g AND r.prefix = p.key)`;
    case "account":
      return sql`(SELECT b.name FROM billing_groups b WHERE b.id = p.key)`;
    case "supplier":
      return sql`(SELECT s.name FROM suppliers s WHERE s.id = p.key)`;
    default:
      return sql`NULL::text`;
  }
}

/** numeric sums -> text -> BigInt: exact on both engines. Labels are looked up per (key, group) by primary key. */
function usageQuery(report: UsageReportSpec, sources: UsageSources): SQL {
  const ctes = [
    ...sources.ctes,
    sql`parts AS (${sql.join(sources.parts, sql` UNION ALL `)})`,
    sql`per_group AS (
      SELECT p.key, p.currency, ${labelOf(report.groupBy)} AS label, sum(p.calls) AS calls, sum(p.answered) AS answered, sum(p.unrated) AS unrated,
        sum(p.billed) AS billed, sum(p.price) AS price, sum(p.buy_cost) AS buy_cost, sum(p.margin) AS margin
      FROM parts p GROUP BY p.key, p.g, p.currency
    )`,
  ];
  return sql`WITH ${sql.join(ctes, sql`, `)}
    SELECT ${formatKey(report, sql`per_group.key`)} AS key, per_group.currency, min(label) AS label, sum(calls)::text AS calls,
      sum(answered)::text AS answered, sum(unrated)::text AS unrated, coalesce(sum(billed), 0)::text AS billed,
      coalesce(sum(price), 0)::text AS price, coalesce(sum(buy_cost), 0)::text AS buy_cost, coalesce(sum(margin), 0)::text AS margin
    FROM per_group GROUP BY per_group.key, per_group.currency HAVING sum(calls) <> 0
    ORDER BY per_group.key NULLS LAST, per_group.currency`;
}

interface SumRow {
  key: string | null;
  currency: string;
  label: string | null;
  calls: string;
  answered: string;
  unrated: string;
  billed: string;
  price: string;
  buy_cost: string;
  margin: string;
}

function runUsageQuery(db: Executor, query: SQL): Promise<SumRow[]> {
  // JIT off: the planner cannot know that the calls parts (range ends, cut quarters) are small and estimates
  // them at up to the whole table, which crosses jit_above_cost; compiling then took ~2.5 s of a 15 ms query
  // (EXPLAIN ANALYZE, 1M calls). SET LOCAL needs a transaction; on PGlite the setting is a no-op.
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL jit = off`);
    return queryRows<SumRow>(tx, query);
  });
}

function toUsageSums(r: SumRow): UsageSums {
  return {
    key: r.key,
    label: r.label,
    currency: r.currency,
    calls: BigInt(r.calls),
    answeredCalls: BigInt(r.answered),
    unratedCalls: BigInt(r.unrated),
    billedSeconds: BigInt(r.billed),
    priceMicros: BigInt(r.price),
    buyCostMicros: BigInt(r.buy_cost),
    marginMicros: BigInt(r.margin),
  };
}
