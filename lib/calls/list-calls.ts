import { and, desc, eq, getTableColumns, gte, lte, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { canReadOperatorCost } from "@/lib/auth/cost-view";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import { cursorScope, reachCondition, reachOf, singleGroup } from "@/lib/auth/reach";
import { ApiError } from "@/lib/errors/api-error";
import { queryTextColumn, type Executor } from "@/lib/db/client";
import { callUuids, calls } from "@/lib/db/schema";
import { decodeCursor, encodeCursor, scopeHash } from "./cursor";
import type { ListCallsQuery, CallPage } from "./schemas";
import { callJsonColumns, serializeCall, tierColumns } from "./serialize-call";

/** Filters of a listing, normalised: absent and empty mean the same thing. */
export interface CallFilters {
  startTimeGte?: Date;
  startTimeLte?: Date;
  direction?: "inbound" | "outbound";
  /** Literal substring of the called number. */
  to?: string;
  /** Exact, case-insensitive. */
  hangupCause?: string;
  /** Digits the called number starts with. */
  toPrefix?: string;
  /** Digits the caller number starts with. */
  fromPrefix?: string;
  /** Exact call id (digits). */
  id?: string;
  /** Exact call uuid. */
  uuid?: string;
  /** One billing group: narrows a platform key; a bound key asking for another group gets nothing. */
  billingGroupId?: string;
  /** Calls carried by one supplier: calls:read_cost principals only (supplierFilterAllowed). */
  supplierId?: string;
}

export interface PageRequest {
  pageSize: number;
  cursor?: string;
}

const nonEmpty = (s: string | undefined) => (s === undefined || s === "" ? undefined : s);
const digits = (s: string | undefined) => nonEmpty(s?.replace(/^\+/, ""));

export function callFiltersFromQuery(query: ListCallsQuery): CallFilters {
  const gteText = nonEmpty(query["startTime[gte]"]);
  const lteText = nonEmpty(query["startTime[lte]"]);
  return {
    startTimeGte: gteText ? new Date(gteText) : undefined,
    startTimeLte: lteText ? new Date(lteText) : undefined,
    direction: query.direction,
    to: nonEmpty(query.to),
    hangupCause: nonEmpty(query.hangupCause),
    toPrefix: digits(query.toPrefix),
    fromPrefix: digits(query.from),
    id: nonEmpty(query.id),
    uuid: nonEmpty(query.uuid),
    billingGroupId: nonEmpty(query.billingGroupId),
    supplierId: nonEmpty(query.supplierId),
  };
}

/**
 * A supplier filter tells which supplier carried which calls: cost data (docs/contract.md §4), so a principal
 * without calls:read_cost is refused rather than answered (an empty list would still say something).
 */
export function assertSupplierFilterAllowed(principal: Principal, filters: Pick<CallFilters, "supplierId">): void {
  if (filters.supplierId !== undefined && !canReadOperatorCost(principal)) {
    throw new ApiError(
      "insufficient_scope",
      canReadCost(principal)
        ? "Filtering by supplier is for the platform's cost view (a key not bound to a billing group)."
        : "Filtering by supplier needs the scope `calls:read_cost`.",
    );
  }
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** `%`, `_` and the escape character itself are ordinary characters in a `to` filter. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The columns callMatchConditions reads: of `calls`, or of an alias of it. */
type MatchColumns = {
  [K in "billingGroupId" | "startTime" | "toNumber" | "fromNumber" | "id" | "uuid" | "supplierId"]: AnyPgColumn;
};

/**
 * Conditions of the filters about one number or one call (to, toPrefix, from, id, uuid) and the supplier, which only the calls
 * rows answer: the listing and GET /v1/usage (on its alias of calls) filter with these same expressions.
 * `group`: the one billing group the caller's other conditions already confine the rows to (a bound key's, or the
 * group a platform key names), null for every group. It changes no result, only how the uuid is looked up.
 */
export function callMatchConditions(filters: CallFilters, c: MatchColumns, group: string | null): SQL[] {
  const conditions: SQL[] = [];
  if (filters.supplierId) conditions.push(eq(c.supplierId, filters.supplierId));
  if (filters.to) conditions.push(sql`${c.toNumber} LIKE ${`%${escapeLike(filters.to)}%`} ESCAPE '\\'`);
  // Prefixes as LIKE 'p%': the trigram index on to_number serves it (see README on from_number).
  if (filters.toPrefix) conditions.push(sql`${c.toNumber} LIKE ${`${escapeLike(filters.toPrefix)}%`} ESCAPE '\\'`);
  if (filters.fromPrefix)
    conditions.push(sql`${c.fromNumber} LIKE ${`${escapeLike(filters.fromPrefix)}%`} ESCAPE '\\'`);
  if (filters.id !== undefined) {
    // An id beyond bigint matches nothing (and must not reach the database as a cast error).
    const id = BigInt(filters.id);
    conditions.push(id > MAX_BIGINT ? sql`false` : eq(c.id, id));
  }
  if (filters.uuid) {
    // No index on calls holds uuid (partitioned since 0008): the claim table names the call(s) by calls' primary key,
    // found through call_uuids_pkey (group, uuid) or call_uuids_uuid_idx (0009; a platform key's search, two groups may
    // hold the same uuid); each call is then read by (start_time, id) in its own partition (run-time pruning skips the
    // others). Every stored call has its claim (ingest writes both in one statement). `calls.uuid = $uuid` stays as a
    // recheck of the row found. docs/scale-out.md, "The uuid filter".
    const k = callUuids;
    const inGroup = group === null ? sql`` : sql` AND ${k.billingGroupId} = ${group}`;
    conditions.push(
      sql`(${c.billingGroupId}, ${c.startTime}, ${c.id}) IN (SELECT ${k.billingGroupId}, ${k.startTime}, ${k.callId} FROM ${k} WHERE ${k.uuid} = ${filters.uuid}${inGroup})`,
      eq(c.uuid, filters.uuid),
    );
  }
  return conditions;
}

/** What a cursor is bound to: the filters and the reach of the key (its group, or every group); the history tier's listing binds its cursors the same way. */
export function listingHash(principal: Principal, filters: CallFilters): string {
  return scopeHash({
    group: cursorScope(reachOf(principal)),
    gte: filters.startTimeGte?.toISOString(),
    lte: filters.startTimeLte?.toISOString(),
    direction: filters.direction,
    to: filters.to,
    hangupCause: filters.hangupCause?.toUpperCase(),
    toPrefix: filters.toPrefix,
    fromPrefix: filters.fromPrefix,
    id: filters.id,
    uuid: filters.uuid,
    billingGroupId: filters.billingGroupId,
    // Only when set: cursors handed out before this filter existed keep their hash.
    ...(filters.supplierId ? { supplierId: filters.supplierId } : {}),
  });
}

export interface CallListing {
  page: CallPage["calls"];
  hasMore: boolean;
  /** Cursor of the next page; undefined at the end. */
  nextCursor?: string;
}

/** The rows a page may hold: the key's reach, the filters, and after the cursor; with the hash the cursor is bound to. */
function listingWhere(
  principal: Principal,
  filters: CallFilters,
  cursor: string | undefined,
): { where: SQL | undefined; hash: string } {
  assertSupplierFilterAllowed(principal, filters);
  const hash = listingHash(principal, filters);
  const conditions: (SQL | undefined)[] = [];
  const reach = reachOf(principal);
  conditions.push(reachCondition(reach, calls.billingGroupId));
  if (filters.startTimeGte) conditions.push(gte(calls.startTime, filters.startTimeGte));
  if (filters.startTimeLte) conditions.push(lte(calls.startTime, filters.startTimeLte));
  if (filters.direction) conditions.push(eq(calls.direction, filters.direction));
  // The same expression as calls_group_hangup_start_id_idx, so the index serves it.
  if (filters.hangupCause) conditions.push(sql`upper(${calls.hangupCause}) = upper(${filters.hangupCause})`);
  conditions.push(...callMatchConditions(filters, calls, singleGroup(reach) ?? filters.billingGroupId ?? null));
  if (filters.billingGroupId) conditions.push(eq(calls.billingGroupId, filters.billingGroupId));
  if (cursor !== undefined) {
    const after = decodeCursor(cursor, hash);
    conditions.push(
      sql`(${calls.startTime}, ${calls.id}) < (${after.startTime.toISOString()}::timestamptz, ${after.id.toString()}::bigint)`,
    );
  }
  return { where: and(...conditions), hash };
}

/**
 * One page of calls, newest first, by keyset on (start_time DESC, id DESC): the primary key
 * (billing_group_id, start_time, id), scanned backwards, (bound key) and calls_start_id_idx (platform key) serve it, and
 * pageSize + 1 rows tell whether more exist without counting. New inserts never shift a page.
 */
export async function listCalls(
  db: Executor,
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
): Promise<CallListing> {
  const { where, hash } = listingWhere(principal, filters, page.cursor);
  const rows = await db
    .select({ ...getTableColumns(calls), ...tierColumns(principal) })
    .from(calls)
    .where(where)
    .orderBy(desc(calls.startTime), desc(calls.id))
    .limit(page.pageSize + 1);

  const hasMore = rows.length > page.pageSize;
  const pageRows = hasMore ? rows.slice(0, page.pageSize) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    page: pageRows.map((row) => serializeCall(row, principal)),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ startTime: last.startTime, id: last.id }, hash) : undefined,
  };
}

export interface CallListingJson {
  /** The page's calls as a JSON array: the text JSON.stringify(listCalls(...).page) gives. */
  callsJson: string;
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * listCalls for GET /v1/calls: the same rows, order and cursor, but each call arrives from the database as its
 * JSON text (callJsonColumns), so the page is joined, never decoded into rows and objects and stringified again.
 * That decoding was most of a listing request's time (`npm run bench -- --profile`): Drizzle selected and mapped
 * all 37 columns, and PGlite copies and decodes every field on its own.
 */
export async function listCallsJson(
  db: Executor,
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
): Promise<CallListingJson> {
  const { query, hash } = listCallsJsonQuery(principal, filters, page);
  // On `db`, never planOnce(db): planned for its values at every call. A reused generic plan of a plain page was 5x
  // slower with many groups' calls over several partitions (28 vs 5 ms p50 in `npm run bench`), and a number search's
  // cannot see its pattern.
  const rows = await queryTextColumn(db, query);
  const hasMore = rows.length > page.pageSize;
  const count = hasMore ? page.pageSize : rows.length;
  const callsJson = `[${rows.slice(0, count).join(",")}]`;
  let nextCursor: string | undefined;
  if (hasMore && count > 0) {
    // The position of the page's last call, as the page shows it (startTime holds the column's milliseconds).
    const last = JSON.parse(rows[count - 1]) as { id: string; startTime: string };
    nextCursor = encodeCursor({ startTime: new Date(last.startTime), id: BigInt(last.id) }, hash);
  }
  return { callsJson, hasMore, nextCursor };
}

/** listCallsJson's statement (GET /v1/calls's), and the hash its cursors are bound to; the plan tests EXPLAIN it. */
export function listCallsJsonQuery(
  principal: Principal,
  filters: CallFilters,
  page: PageRequest,
): { query: SQL; hash: string } {
  const { where, hash } = listingWhere(principal, filters, page.cursor);
  // Qualified ORDER BY: the select list's "id" is the id as text.
  const query = sql`SELECT row_to_json(c)::text AS call FROM (SELECT ${callJsonColumns(principal)} FROM ${calls} WHERE ${where ?? sql`true`}
      ORDER BY ${calls.startTime} DESC, ${calls.id} DESC LIMIT ${page.pageSize + 1}) c`;
  return { query, hash };
}

/** The filters GET /v1/calls's nextPageUrl repeats (lib/http/next-page-link.ts), in their order there. */
export const CALL_PAGE_FILTERS = [
  "startTime[gte]",
  "startTime[lte]",
  "direction",
  "to",
  "toPrefix",
  "from",
  "hangupCause",
  "id",
  "uuid",
  "billingGroupId",
  "supplierId",
] as const satisfies readonly (keyof ListCallsQuery)[];
