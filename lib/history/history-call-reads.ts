import { sql } from "drizzle-orm";
import { costViewOf } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { callReads, usageCallRanges, type CallReads } from "@/lib/calls/call-store";
import { decodeCursor, encodeCursor } from "@/lib/calls/cursor";
import { csvColumns, csvRows } from "@/lib/calls/export-csv";
import {
  listingHash,
  type CallFilters,
  type CallListing,
  type CallListingJson,
  type PageRequest,
} from "@/lib/calls/list-calls";
import type { CallDetail, CallDetailWithCost } from "@/lib/calls/schemas";
import type { ElsewhereSums, UsageSums, UsageSumsRequest } from "@/lib/calls/usage-sums";
import { serializeCall, serializeCallDetail, type TierFigures } from "@/lib/calls/serialize-call";
import type { StoredCall } from "@/lib/calls/stored-call";
import { historySettings } from "@/lib/config/env";
import { ApiError } from "@/lib/errors/api-error";
import { streamPagedCsv } from "@/lib/http/csv";
import { utcMonthStart } from "@/lib/db/call-partitions";
import { queryRows, type Executor } from "@/lib/db/client";
import { processSingleton } from "@/lib/runtime/process-singleton";
import {
  callKeysTable,
  callsTable,
  historyKeysReady,
  historyRowToStoredCall,
  openHistoryStore,
  type HistoryStore,
} from "./history-store";
import { historyCallKey, historyTierFigures } from "./history-tier-charges";

// The reads of calls across the boundary (docs/contract.md "History tier"): with the history tier on, GET /v1/calls
// lists the hot table and, where its page reaches into moved months, ClickHouse's calls, merged on the same keyset
// (start_time DESC, id DESC) with the same cursor, filters and serialiser; GET /v1/usage's calls parts (the partial
// hours or days at a range's ends, or the whole range for filters no rollup holds) add history's calls of the same
// ranges. The other reads answer from the hot store.

/** The process's history store, opened on first use (one HTTP agent); undefined with the tier off. */
export function processHistoryStore(): HistoryStore | undefined {
  const settings = historySettings();
  if (!settings) return undefined;
  return processSingleton(`history-store:${settings.url}/${settings.database}`, () => openHistoryStore(settings));
}

/** callReads(db), or with the history tier on, the same reads with the listing continued into moved months. */
export function callReadsWithHistory(db: Executor): CallReads {
  const hot = callReads(db);
  const store = processHistoryStore();
  return store ? historyCallReads(hot, db, store) : hot;
}

export function historyCallReads(hot: CallReads, db: Executor, store: HistoryStore): CallReads {
  return {
    ...hot,
    listCallsJson: (principal, filters, page) => listAcross(hot, db, store, principal, filters, page),
    getCall: (principal, id) => getAcross(hot, db, store, principal, id),
    exportPage: (principal, filters, page) => exportPageAcross(hot, db, store, principal, filters, page),
    usageSums: (request) => usageSumsAcross(hot, db, store, request),
    // exportCallsCsv's stream, paging through the export pages across both stores.
    exportCsv: async (principal, filters, pageSize = 1000) => {
      const columns = csvColumns(principal);
      return streamPagedCsv(
        columns,
        (cursor) => exportPageAcross(hot, db, store, principal, filters, { pageSize, cursor }),
        (listing: CallListing) => csvRows(columns, listing.page),
      );
    },
  };
}

/** GET /v1/calls/{id}: the hot call, else a moved one in reach; else the hot store's own 404, word for word. */
async function getAcross(
  hot: CallReads,
  db: Executor,
  store: HistoryStore,
  principal: Principal,
  id: string,
): Promise<CallDetail | CallDetailWithCost> {
  try {
    return await hot.getCall(principal, id);
  } catch (e) {
    // Malformed ids were refused with the same 404 before any lookup: nothing to ask history.
    if (!(e instanceof ApiError) || e.code !== "not_found" || !/^\d{1,19}$/.test(id) || BigInt(id) > MAX_BIGINT)
      throw e;
    const moved = await movedMonths(db);
    if (!moved) throw e;
    const result = await store.client.query({
      query: `SELECT * FROM ${callsTable(store)} WHERE ${moved.only} AND ${historyWhere(principal, { id })} LIMIT 1`,
      format: "JSONEachRow",
    });
    const [row] = await result.json<Record<string, unknown>>();
    if (!row) throw e;
    const [call] = await withTierFigures(store, principal, [historyRowToStoredCall(row)]);
    return serializeCallDetail(call, principal);
  }
}

/** History's calls with a reseller's tier figures beside them (its cost view), as tierColumns adds them hot. */
async function withTierFigures(
  store: HistoryStore,
  principal: Principal,
  rows: StoredCall[],
): Promise<(StoredCall & Partial<TierFigures>)[]> {
  const view = costViewOf(principal);
  if (view.kind !== "tier") return rows;
  const figures = await historyTierFigures(store, view.tier, rows);
  return rows.map((row) => ({ ...row, ...figures.get(historyCallKey(row)) }));
}

/** A ClickHouse string literal (18.16 has no query parameters): backslash and quote escaped. */
const text = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** listingWhere's conditions (lib/calls/list-calls.ts) over ClickHouse's calls, with the same meaning. */
function historyWhere(principal: Principal, filters: CallFilters, after?: { ms: number; id: bigint }): string {
  const reach = reachOf(principal);
  return historyConditions(isPlatform(reach) ? null : reach.groupIds, filters, after);
}

/** historyWhere within `groups` (null: every group) instead of a principal's reach. */
function historyConditions(
  groups: readonly string[] | null,
  filters: CallFilters,
  after?: { ms: number; id: bigint },
): string {
  const c: string[] = [];
  if (groups !== null) c.push(groups.length === 0 ? "0" : `billing_group_id IN (${groups.map(text).join(", ")})`);
  if (filters.billingGroupId) c.push(`billing_group_id = ${text(filters.billingGroupId)}`);
  if (filters.startTimeGte) c.push(`start_time >= ${filters.startTimeGte.getTime()}`);
  if (filters.startTimeLte) c.push(`start_time <= ${filters.startTimeLte.getTime()}`);
  if (filters.direction) c.push(`direction = ${text(filters.direction)}`);
  if (filters.hangupCause) c.push(`upperUTF8(hangup_cause) = upperUTF8(${text(filters.hangupCause)})`);
  if (filters.supplierId) c.push(`supplier_id = ${text(filters.supplierId)}`);
  // Literal substring and prefixes: position and substring, not LIKE, so no wildcard needs escaping.
  if (filters.to) c.push(`position(to_number, ${text(filters.to)}) > 0`);
  if (filters.toPrefix)
    c.push(`substring(to_number, 1, length(${text(filters.toPrefix)})) = ${text(filters.toPrefix)}`);
  if (filters.fromPrefix)
    c.push(`substring(from_number, 1, length(${text(filters.fromPrefix)})) = ${text(filters.fromPrefix)}`);
  if (filters.id !== undefined) {
    const id = BigInt(filters.id);
    c.push(id > MAX_BIGINT ? "0" : `id = ${id}`);
  }
  if (filters.uuid) c.push(`uuid = ${text(filters.uuid)}`);
  if (after) c.push(`(start_time < ${after.ms} OR (start_time = ${after.ms} AND id < ${after.id}))`);
  return c.length > 0 ? c.join(" AND ") : "1";
}

/**
 * The moved months (state removed): their span [first, end), and the ClickHouse condition that reads only them. A
 * month still being moved is also in ClickHouse, partly or wholly, and in PostgreSQL: it is read from PostgreSQL only.
 */
async function movedMonths(db: Executor): Promise<{ first: number; end: number; only: string } | undefined> {
  const rows = await queryRows<{ at: string }>(
    db,
    sql`SELECT to_char(month AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM history_moves
        WHERE state = 'removed' ORDER BY month`,
  );
  if (rows.length === 0) return undefined;
  const starts = rows.map((r) => Date.parse(r.at));
  const only = starts.map((m) => `(start_time >= ${m} AND start_time < ${utcMonthStart(m, 1)})`).join(" OR ");
  return { first: starts[0], end: utcMonthStart(starts[starts.length - 1], 1), only: `(${only})` };
}

type Serialized = CallListing["page"][number];

const newerFirst = (a: Serialized, b: Serialized) => {
  const [am, bm] = [Date.parse(a.startTime), Date.parse(b.startTime)];
  const [ai, bi] = [BigInt(a.id), BigInt(b.id)];
  return bm - am || (bi > ai ? 1 : bi < ai ? -1 : 0);
};

/**
 * One page across both stores, given the hot store's page of it: history's calls of the same page, serialised as the
 * hot ones are, merged on the keyset (start_time DESC, id DESC); the next cursor as the hot listing issues it.
 * Undefined when history has nothing for the page (the hot page is the page).
 */
async function pageAcross(
  db: Executor,
  store: HistoryStore,
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
  hotPage: { page: Serialized[]; hasMore: boolean },
): Promise<CallListing | undefined> {
  const span = await movedMonths(db);
  if (!span) return undefined;
  const hash = listingHash(principal, filters);
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, hash);
  const upper = Math.min(after?.startTime.getTime() ?? Infinity, (filters.startTimeLte?.getTime() ?? Infinity) + 1);
  const lower = filters.startTimeGte?.getTime() ?? -Infinity;
  // No moved month within what the page may still show.
  if (upper <= span.first || lower >= span.end) return undefined;
  // A full hot page with more behind it that ends after every moved month is the page: history's calls all come
  // after it, and its cursor leads there. Without more hot calls, history is asked so the page's cursor does.
  const lastHot = hotPage.page.at(-1);
  if (hotPage.hasMore && hotPage.page.length === page.pageSize && lastHot && Date.parse(lastHot.startTime) >= span.end)
    return undefined;
  const where = `${span.only} AND ${historyWhere(principal, filters, after && { ms: after.startTime.getTime(), id: after.id })}`;
  // Every group's calls (a platform page, no uuid): keys from call_keys, sorted by time, not from calls' group slices.
  const keysFrom =
    isPlatform(reachOf(principal)) && !filters.billingGroupId && !filters.uuid && (await historyKeysReady(store))
      ? callKeysTable(store)
      : callsTable(store);
  // The instants the page's calls may have: below the cursor's (its own instant too, for smaller ids) and the filters'.
  const instants = {
    below: Math.min(
      after ? after.startTime.getTime() + 1 : Infinity,
      (filters.startTimeLte?.getTime() ?? Infinity) + 1,
      span.end,
    ),
    from: Math.max(lower, span.first),
  };
  const stored = (await pageRowsByKeys(store, keysFrom, where, page.pageSize + 1, instants)).map(
    historyRowToStoredCall,
  );
  const historyRows = (await withTierFigures(store, principal, stored)).map((row) => serializeCall(row, principal));
  if (historyRows.length === 0) return undefined;
  const merged = [...hotPage.page, ...historyRows].sort(newerFirst);
  const shown = merged.slice(0, page.pageSize);
  const hasMore = hotPage.hasMore || merged.length > page.pageSize;
  const last = shown.at(-1);
  return {
    page: shown,
    hasMore,
    nextCursor:
      hasMore && last ? encodeCursor({ startTime: new Date(last.startTime), id: BigInt(last.id) }, hash) : undefined,
  };
}

type PageKey = { billing_group_id: string; start_time: string; id: string };

/** The first window of a page's key read, ms: an hour before its newest possible instant; each next one 8x wider. */
const FIRST_WINDOW_MS = 3_600_000;

/**
 * The first `limit` calls matching `where` on (start_time DESC, id DESC), whose instants are in [from, below), keys
 * first: 18.16 cannot read its sorting key in order, so `SELECT * ... ORDER BY ... LIMIT` reads every column of every
 * matching row and sorts them. Here only the sort key's columns (and what `where` reads) are sorted, read from
 * `keysFrom` (calls, or call_keys for every group's calls), within a window of the newest instants first (an hour,
 * then 8x wider until `limit` keys are found or the window holds [from, below): every call outside a window is older
 * than every call in it), so the primary key (billing_group_id, start_time, id) of calls, or (start_time, id) of
 * call_keys, reads a few granules; then the page's whole rows are read from calls by those keys. DISTINCT: call_keys
 * may hold a key twice until a merge (ensureCallKeys).
 */
async function pageRowsByKeys(
  store: HistoryStore,
  keysFrom: string,
  where: string,
  limit: number,
  instants: { below: number; from: number },
): Promise<Record<string, unknown>[]> {
  let keys: PageKey[] = [];
  for (let width = FIRST_WINDOW_MS; ; width *= 8) {
    const whole = instants.below - width <= instants.from;
    const window = whole ? "" : ` AND start_time >= ${instants.below - width}`;
    keys = await (
      await store.client.query({
        query: `SELECT DISTINCT billing_group_id, start_time, id FROM ${keysFrom} WHERE ${where}${window}
                ORDER BY start_time DESC, id DESC LIMIT ${limit}`,
        format: "JSONEachRow",
      })
    ).json<PageKey>();
    if (whole || keys.length === limit) break;
  }
  if (keys.length === 0) return [];
  const groups = [...new Set(keys.map((k) => k.billing_group_id))];
  const times = keys.map((k) => Number(k.start_time));
  // The group and time bounds let the primary key skip to the page's granules; the tuples pick its rows.
  return (
    await store.client.query({
      query: `SELECT * FROM ${callsTable(store)}
              WHERE billing_group_id IN (${groups.map(text).join(", ")})
                AND start_time >= ${Math.min(...times)} AND start_time <= ${Math.max(...times)}
                AND (billing_group_id, start_time, id) IN (${keys.map((k) => `(${text(k.billing_group_id)}, ${k.start_time}, ${k.id})`).join(", ")})
              ORDER BY start_time DESC, id DESC`,
      format: "JSONEachRow",
    })
  ).json<Record<string, unknown>>();
}

/** GET /v1/calls: the hot page first (it checks the cursor and filters as it always has), then pageAcross. */
async function listAcross(
  hot: CallReads,
  db: Executor,
  store: HistoryStore,
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
): Promise<CallListingJson> {
  const hotPage = await hot.listCallsJson(principal, filters, page);
  const hotCalls = JSON.parse(hotPage.callsJson) as Serialized[];
  const across = await pageAcross(db, store, principal, filters, page, { page: hotCalls, hasMore: hotPage.hasMore });
  // Nothing from history: the hot page as it was, byte for byte.
  if (!across) return hotPage;
  return { callsJson: JSON.stringify(across.page), hasMore: across.hasMore, nextCursor: across.nextCursor };
}

/** One export page across both stores (the background exports, the CSV export). */
async function exportPageAcross(
  hot: CallReads,
  db: Executor,
  store: HistoryStore,
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
): Promise<CallListing> {
  const hotPage = await hot.exportPage(principal, filters, page);
  return (await pageAcross(db, store, principal, filters, page, hotPage)) ?? hotPage;
}

/** ClickHouse's raw column a report keys on (usage-sums.ts rowKey reads it): the quarter for day and month. */
const USAGE_KEY_COLUMN: Record<UsageSumsRequest["groupBy"], string | undefined> = {
  day: "intDiv(start_time, 900000) * 900000 AS quarter",
  month: "intDiv(start_time, 900000) * 900000 AS quarter",
  destination: "matched_prefix",
  direction: "direction",
  hangupCause: "hangup_cause",
  account: undefined,
  supplier: "supplier_id",
};

/**
 * GET /v1/usage across the boundary: the rollups keep counting moved calls, so only the instants a report reads from
 * calls (usageCallRanges) need history's calls too: summed in ClickHouse within the removed months, the same groups
 * and filters, grouped by the report's raw key column, and added to the hot report's parts (readUsageSums' elsewhere).
 */
async function usageSumsAcross(
  hot: CallReads,
  db: Executor,
  store: HistoryStore,
  request: UsageSumsRequest,
): Promise<UsageSums[]> {
  const moved = await movedMonths(db);
  const ranges = usageCallRanges(request).filter(
    (r) => moved && (r.gte?.getTime() ?? -Infinity) < moved.end && (r.lte?.getTime() ?? Infinity) >= moved.first,
  );
  if (!moved || ranges.length === 0) return hot.usageSums(request);
  const within = ranges
    .map(
      (r) =>
        `(${r.gte ? `start_time >= ${r.gte.getTime()}` : "1"} AND ${r.lte ? `start_time <= ${r.lte.getTime()}` : "1"})`,
    )
    .join(" OR ");
  // The report's groups are its scope; billingGroupId and the range are not filters here (usage-sums.ts neither).
  const filters: CallFilters = {
    ...request.filters,
    billingGroupId: undefined,
    startTimeGte: undefined,
    startTimeLte: undefined,
  };
  const key = USAGE_KEY_COLUMN[request.groupBy];
  const result = await store.client.query({
    query: `SELECT billing_group_id, currency${key ? `, ${key}` : ""},
              toString(count()) AS calls, toString(count(answer_time)) AS answered, toString(countIf(rated = 0)) AS unrated,
              toString(sum(bill_duration)) AS billed, toString(sum(price_micros)) AS price,
              toString(sum(ifNull(buy_cost_micros, 0))) AS buy_cost,
              toString(sumIf(price_micros - assumeNotNull(buy_cost_micros), isNotNull(buy_cost_micros))) AS margin
            FROM ${callsTable(store)}
            WHERE ${moved.only} AND (${within}) AND ${historyConditions(request.groups, filters)}
            GROUP BY billing_group_id, currency${key ? `, ${key.split(" AS ").at(-1)}` : ""}`,
    format: "JSONEachRow",
  });
  type Row = Record<string, string | number | null>;
  const str = (v: string | number | null | undefined) => (v === null || v === undefined ? null : String(v));
  const elsewhere: ElsewhereSums[] = (await result.json<Row>()).map((r) => ({
    startTime: r.quarter === undefined ? null : new Date(Number(r.quarter)).toISOString(),
    matchedPrefix: str(r.matched_prefix),
    direction: str(r.direction),
    hangupCause: str(r.hangup_cause),
    billingGroupId: String(r.billing_group_id),
    supplierId: str(r.supplier_id),
    currency: String(r.currency),
    calls: String(r.calls),
    answered: String(r.answered),
    unrated: String(r.unrated),
    billed: String(r.billed),
    price: String(r.price),
    buyCost: String(r.buy_cost),
    margin: String(r.margin),
  }));
  return hot.usageSums(request, elsewhere);
}
