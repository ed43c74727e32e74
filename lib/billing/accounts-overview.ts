import { sql } from "drizzle-orm";
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
  /** Sell-side spend (sum of call prices) of the current UTC day and UTC calendar month. */
  todaySpendMicros: bigint;
  monthSpendMicros: bigint;
}

export interface OverviewPage {
  rows: OverviewRow[];
  /** Every account the search matches (the table's length). */
  total: number;
  /** The UTC instants today and this month start at (the spend columns' periods). */
  todayFrom: string;
  monthFrom: string;
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
 * One page of every billing group with its balance, credit limit, status and spend today and this month, for the
 * operator console (platform staff only: the caller checks). Sorting, searching and paging are the database's, so a
 * page costs the same at 10k accounts: spend comes from the daily usage rollup (usage_daily, UTC days, read through its
 * `day` index for the current month only), never from calls. Ties break on the id, so pages never overlap.
 */
export async function listAccountsOverview(db: Executor, query: OverviewQuery = {}): Promise<OverviewPage> {
  const { statement, where, offset, todayFrom, monthFrom } = overviewStatement(query);
  const rows = await queryRows<{
    id: string;
    name: string;
    currency: string;
    accountcode: string | null;
    balance_micros: bigint | string;
    credit_limit_micros: bigint | string;
    disabled: boolean;
    disabled_by_operator: boolean;
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
      todaySpendMicros: BigInt(r.today_spend),
      monthSpendMicros: BigInt(r.month_spend),
    })),
    total,
    todayFrom: todayFrom.toISOString(),
    monthFrom: monthFrom.toISOString(),
  };
}

/** The overview's one statement (exported for the test that reads its plan). */
export function overviewStatement(query: OverviewQuery) {
  const now = query.now ?? new Date();
  const todayFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const limit = Math.min(Math.max(query.limit ?? 100, 1), OVERVIEW_MAX_LIMIT);
  const offset = Math.max(query.offset ?? 0, 0);
  const search = query.search?.trim() ?? "";
  const where =
    search === ""
      ? sql``
      : sql`WHERE g.name ILIKE ${likePattern(search)} OR g.accountcode ILIKE ${likePattern(search)}
              OR g.id LIKE ${`${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;
  const direction = query.descending ? sql.raw("DESC") : sql.raw("ASC");
  const orderBy = sql.raw(ORDER[query.sort ?? "name"]);
  const statement = sql`WITH spend AS (
          SELECT billing_group_id,
            COALESCE(SUM(price_micros) FILTER (WHERE day >= ${todayFrom.toISOString()}::timestamptz), 0) AS today,
            SUM(price_micros) AS month
          FROM usage_daily WHERE day >= ${monthFrom.toISOString()}::timestamptz
          GROUP BY billing_group_id
        )
        SELECT g.id, g.name, g.currency, g.accountcode, g.balance_micros, g.credit_limit_micros, g.disabled,
          g.disabled_by_operator, COALESCE(s.today, 0)::bigint AS today_spend,
          COALESCE(s.month, 0)::bigint AS month_spend, count(*) OVER () AS total
        FROM billing_groups g LEFT JOIN spend s ON s.billing_group_id = g.id
        ${where}
        ORDER BY ${orderBy} ${direction}, g.id ${direction}
        LIMIT ${limit} OFFSET ${offset}`;
  return { statement, where, offset, todayFrom, monthFrom };
}
