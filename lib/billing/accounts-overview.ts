import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/** The columns the operator console's accounts overview sorts by. */
export const OVERVIEW_SORTS = [
  "name",
  "id",
  "currency",
  "balance",
  "creditLimit",
  "status",
  "todaySpend",
  "monthSpend",
] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];

export interface OverviewQuery {
  /** Part of the name or accountcode (case-insensitive), or the start of the id. */
  search?: string;
  sort?: OverviewSort;
  descending?: boolean;
  offset?: number;
  limit?: number;
  /** The accounts listed (a reseller's subtree, its reach); absent: every account (the platform's console). */
  groupIds?: readonly string[];
  /** The instant "today" and "this month" are taken at (tests). */
  now?: Date;
}

export interface OverviewRow {
  id: string;
  name: string;
  currency: string;
  accountcode: string | null;
  balanceMicros: bigint;
  creditLimitMicros: bigint;
  disabled: boolean;
  disabledByOperator: boolean;
  /** The account's own zone (billing_groups.time_zone): its today and this month are cut in it. */
  timeZone: string;
  /** Sell-side spend (sum of call prices) of the account's current day and calendar month, in its own zone. */
  todaySpendMicros: bigint;
  monthSpendMicros: bigint;
}

export interface OverviewPage {
  rows: OverviewRow[];
  /** Every account the search matches (the table's length). */
  total: number;
}

export const OVERVIEW_MAX_LIMIT = 500;

const ORDER: Record<OverviewSort, string> = {
  name: "lower(g.name)",
  id: "g.id",
  currency: "g.currency",
  balance: "g.balance_micros",
  creditLimit: "g.credit_limit_micros",
  status: "g.disabled",
  todaySpend: "today_spend",
  monthSpend: "month_spend",
};

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of every billing group with its balance, credit limit, status and spend today and this month, each in the
 * account's own zone, for the operator console (platform staff only: the caller checks). Sorting, searching and paging
 * are the database's, so a page costs the same at 10k accounts: spend comes from the usage rollups, never from calls
 * (see spendStatement). Ties break on the id, so pages never overlap.
 */
export async function listAccountsOverview(db: Executor, query: OverviewQuery = {}): Promise<OverviewPage> {
  const { statement, where, offset } = overviewStatement(query);
  const rows = await queryRows<{
    id: string;
    name: string;
    currency: string;
    accountcode: string | null;
    balance_micros: bigint | string;
    credit_limit_micros: bigint | string;
    disabled: boolean;
    disabled_by_operator: boolean;
    time_zone: string;
    today_spend: bigint | string;
    month_spend: bigint | string;
    total: number | string;
  }>(db, statement);
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  if (rows.length === 0 && offset > 0) {
    const [counted] = await queryRows<{ n: number | string }>(
      db,
      sql`SELECT count(*) AS n FROM billing_groups g ${where}`,
    );
    total = Number(counted.n);
  }
  return {
    rows: rows.map((r) => ({
      id: r.id,
      name: r.name,
      currency: r.currency.trim(),
      accountcode: r.accountcode,
      balanceMicros: BigInt(r.balance_micros),
      creditLimitMicros: BigInt(r.credit_limit_micros),
      disabled: r.disabled,
      disabledByOperator: r.disabled_by_operator,
      timeZone: r.time_zone,
      todaySpendMicros: BigInt(r.today_spend),
      monthSpendMicros: BigInt(r.month_spend),
    })),
    total,
  };
}

/** The overview's one statement (exported for the test that reads its plan). */
export function overviewStatement(query: OverviewQuery) {
  const now = query.now ?? new Date();
  const limit = Math.min(Math.max(query.limit ?? 100, 1), OVERVIEW_MAX_LIMIT);
  const offset = Math.max(query.offset ?? 0, 0);
  const search = query.search?.trim() ?? "";
  const conditions: SQL[] = [];
  if (search !== "")
    conditions.push(sql`(g.name ILIKE ${likePattern(search)} OR g.accountcode ILIKE ${likePattern(search)}
              OR g.id LIKE ${`${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`);
  // A reseller's console lists its reach only (an empty reach lists nothing, never everything).
  if (query.groupIds !== undefined)
    conditions.push(
      query.groupIds.length === 0
        ? sql`false`
        : sql`g.id IN (${sql.join(
            query.groupIds.map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
  const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
  const direction = query.descending ? sql.raw("DESC") : sql.raw("ASC");
  const orderBy = sql.raw(ORDER[query.sort ?? "name"]);
  const statement = sql`WITH ${spendStatement(now)}
        SELECT g.id, g.name, g.currency, g.accountcode, g.balance_micros, g.credit_limit_micros, g.disabled,
          g.disabled_by_operator, g.time_zone, COALESCE(s.today, 0)::bigint AS today_spend,
          COALESCE(s.month, 0)::bigint AS month_spend, count(*) OVER () AS total
        FROM billing_groups g LEFT JOIN spend s ON s.billing_group_id = g.id
        ${where}
        ORDER BY ${orderBy} ${direction}, g.id ${direction}
        LIMIT ${limit} OFFSET ${offset}`;
  return { statement, where, offset };
}

const DAY_MS = 86_400_000;

/**
 * The CTEs ending in `spend(billing_group_id, today, month)`: each account's spend over its own day and calendar month
 * holding `now`, in its zone (billing_groups.time_zone; the periods as the invoice run cuts them), exact from the
 * rollups as GET /v1/usage sums a period: whole UTC days from usage_daily, the whole hours of the UTC days a local
 * midnight cuts from usage_hourly, and the quarters of an hour a :30/:45 zone's midnight cuts from usage_quarter (a
 * zone's midnight falls on a quarter in every zone today). Only the accounts with a usage_daily row near `now` (read
 * through its `day` index) are summed at all.
 */
function spendStatement(now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  // Every zone's month holding `now` lies within these UTC days (offsets are under 15 h, months at most 31 days).
  const low = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - 33 * DAY_MS).toISOString();
  const high = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + 34 * DAY_MS).toISOString();
  // Ceil and floor of an instant to a UTC unit.
  const floor = (unit: string, t: SQL) => sql`date_trunc(${unit}, ${t}, 'UTC')`;
  const ceil = (unit: string, t: SQL) =>
    sql`(CASE WHEN ${floor(unit, t)} = ${t} THEN ${t} ELSE ${floor(unit, t)} + ${`1 ${unit}`}::interval END)`;
  /** [s, e) as whole UTC days [sd, ed), whole hours around them [sh, eh), quarters at the ends: columns `p_*`. */
  const cuts = (p: string, s: SQL, e: SQL) => {
    const sd = ceil("day", s);
    const sh = ceil("hour", s);
    return sql`${s} AS ${sql.raw(`${p}_s`)}, ${e} AS ${sql.raw(`${p}_e`)}, ${sd} AS ${sql.raw(`${p}_sd`)},
      greatest(${sd}, ${floor("day", e)}) AS ${sql.raw(`${p}_ed`)}, ${sh} AS ${sql.raw(`${p}_sh`)},
      greatest(${sh}, ${floor("hour", e)}) AS ${sql.raw(`${p}_eh`)}`;
  };
  const col = (p: string, name: string) => sql.raw(`a.${p}_${name}`);
  /** The whole UTC days of period `p`, for usage_daily row `u`. */
  const inDays = (p: string) => sql`u.day >= ${col(p, "sd")} AND u.day < ${col(p, "ed")}`;
  /**
   * The group's prices over the parts of period `p` outside whole UTC days: hours from usage_hourly, quarters from
   * usage_quarter. Each is read only when there is such a part (CASE is lazy): none for a zone whose midnight is UTC's,
   * no quarter for a whole-hour zone, so most accounts cost no index probe here.
   */
  const edgeSum = (p: string) => {
    const [s, e, sd, ed, sh, eh] = ["s", "e", "sd", "ed", "sh", "eh"].map((n) => col(p, n));
    return sql`(CASE WHEN ${sd} = ${s} AND ${ed} = ${e} THEN 0 ELSE (SELECT coalesce(sum(u.price_micros), 0) FROM usage_hourly u
                WHERE u.billing_group_id = a.id AND ((u.hour >= ${sh} AND u.hour < least(${sd}, ${eh}))
                  OR (u.hour >= greatest(${ed}, ${sh}) AND u.hour < ${eh}))) END)
      + (CASE WHEN ${sh} = ${s} AND ${eh} = ${e} THEN 0 ELSE (SELECT coalesce(sum(u.price_micros), 0) FROM usage_quarter u
                WHERE u.billing_group_id = a.id AND ((u.quarter >= ${s} AND u.quarter < least(${sh}, ${e}))
                  OR (u.quarter >= ${eh} AND u.quarter < ${e}))) END)`;
  };
  const recent = (day: SQL) => sql`${day} >= ${low}::timestamptz AND ${day} < ${high}::timestamptz`;
  return sql`periods AS MATERIALIZED (
          -- The next month's and day's first instants: 32 days (26 hours) on is inside the next month (day) in any zone.
          SELECT g.id, m.ms, date_trunc('month', m.ms + interval '768 hours', g.time_zone) AS me,
            m.ds, date_trunc('day', m.ds + interval '26 hours', g.time_zone) AS de
          FROM billing_groups g
          CROSS JOIN LATERAL (SELECT date_trunc('month', ${at}, g.time_zone) AS ms, date_trunc('day', ${at}, g.time_zone) AS ds) m
          WHERE g.id IN (SELECT DISTINCT billing_group_id FROM usage_daily WHERE ${recent(sql`day`)})
        ), bounds AS MATERIALIZED (
          SELECT id, ${cuts("m", sql`ms`, sql`me`)}, ${cuts("d", sql`ds`, sql`de`)} FROM periods
        ), daily AS (
          SELECT a.id, coalesce(sum(u.price_micros) FILTER (WHERE ${inDays("d")}), 0) AS today,
            coalesce(sum(u.price_micros) FILTER (WHERE ${inDays("m")}), 0) AS month
          FROM usage_daily u JOIN bounds a ON a.id = u.billing_group_id
          WHERE ${recent(sql`u.day`)}
          GROUP BY a.id
        ), spend AS (
          SELECT a.id AS billing_group_id, d.today + ${edgeSum("d")} AS today, d.month + ${edgeSum("m")} AS month
          FROM bounds a JOIN daily d ON d.id = a.id
        )`;
}
