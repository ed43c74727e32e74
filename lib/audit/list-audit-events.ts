import { and, desc, eq, gte, like, lte, sql, type SQL } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { cursorScope, reachCondition, reachOf } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { auditEvents } from "@/lib/db/schema";
import { decodeKeysetCursor, encodeKeysetCursor, scopeHash } from "@/lib/http/keyset-cursor";
import type { AuditEvent, ListAuditEventsQuery } from "./schemas";

/** Filters of a listing, normalised: absent and empty mean the same thing. */
export interface AuditEventFilters {
  occurredAtGte?: Date;
  occurredAtLte?: Date;
  /** Exact action, or with `prefix` every action starting with `action.` */
  action?: string;
  actionIsPrefix?: boolean;
  actorType?: AuditEvent["actor"]["type"];
  actorId?: string;
  /** One billing group: narrows a platform key; a group key naming another group gets nothing. */
  account?: string;
}

const nonEmpty = (s: string | undefined) => (s === undefined || s === "" ? undefined : s);

export function auditFiltersFromQuery(query: ListAuditEventsQuery): AuditEventFilters {
  const gteText = nonEmpty(query["occurredAt[gte]"]);
  const lteText = nonEmpty(query["occurredAt[lte]"]);
  const action = nonEmpty(query.action);
  const actionIsPrefix = action?.endsWith(".*") === true;
  return {
    occurredAtGte: gteText ? new Date(gteText) : undefined,
    occurredAtLte: lteText ? new Date(lteText) : undefined,
    action: actionIsPrefix ? action!.slice(0, -2) : action,
    actionIsPrefix,
    actorType: query.actorType,
    actorId: nonEmpty(query.actorId),
    account: nonEmpty(query.account),
  };
}

/** What a cursor is bound to: the filters and the caller's reach (its group, or every group). */
function listingHash(principal: Principal, filters: AuditEventFilters): string {
  return scopeHash({
    listing: "audit-events",
    group: cursorScope(reachOf(principal)),
    gte: filters.occurredAtGte?.toISOString(),
    lte: filters.occurredAtLte?.toISOString(),
    action: filters.action === undefined ? undefined : `${filters.action}${filters.actionIsPrefix ? ".*" : ""}`,
    actorType: filters.actorType,
    actorId: filters.actorId,
    account: filters.account,
  });
}

function listingWhere(principal: Principal, filters: AuditEventFilters, cursor: string | undefined) {
  const e = auditEvents;
  const hash = listingHash(principal, filters);
  const conditions: (SQL | undefined)[] = [];
  // A group's key sees its group's events only; a platform key every group's and the platform's own.
  conditions.push(reachCondition(reachOf(principal), e.billingGroupId));
  if (filters.account) conditions.push(eq(e.billingGroupId, filters.account));
  if (filters.occurredAtGte) conditions.push(gte(e.occurredAt, filters.occurredAtGte));
  if (filters.occurredAtLte) conditions.push(lte(e.occurredAt, filters.occurredAtLte));
  if (filters.action !== undefined) {
    // The schema allows [a-z0-9_.] only, so the prefix needs no LIKE escaping but `_`.
    conditions.push(
      filters.actionIsPrefix
        ? like(e.action, `${filters.action.replace(/_/g, "\\_")}.%`)
        : eq(e.action, filters.action),
    );
  }
  if (filters.actorType) conditions.push(eq(e.actorType, filters.actorType));
  if (filters.actorId) conditions.push(eq(e.actorId, filters.actorId));
  if (cursor !== undefined) {
    const after = decodeKeysetCursor(cursor, hash);
    conditions.push(
      sql`(${e.occurredAt}, ${e.id}) < (${after.at.toISOString()}::timestamptz, ${after.id.toString()}::bigint)`,
    );
  }
  return { where: and(...conditions), hash };
}

type AuditRow = typeof auditEvents.$inferSelect;

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id.toString(),
    occurredAt: row.occurredAt.toISOString(),
    billingGroupId: row.billingGroupId,
    actor: { type: row.actorType as AuditEvent["actor"]["type"], id: row.actorId, label: row.actorLabel },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    address: row.address,
    before: row.before ?? null,
    after: row.after ?? null,
  };
}

export interface AuditEventListing {
  events: AuditEvent[];
  hasMore: boolean;
  /** Cursor of the next page; undefined at the end. */
  nextCursor?: string;
}

/**
 * One page of events, newest first, by keyset on (occurred_at DESC, id DESC), as GET /v1/calls pages calls:
 * audit_events_group_idx serves a group's key, audit_events_occurred_idx a platform key; pageSize + 1 rows tell
 * whether more exist. Events recorded meanwhile never shift a page.
 */
export async function listAuditEvents(
  db: Executor,
  principal: Principal,
  filters: AuditEventFilters,
  page: { pageSize: number; cursor?: string },
): Promise<AuditEventListing> {
  const { where, hash } = listingWhere(principal, filters, page.cursor);
  const rows = await db
    .select()
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
    .limit(page.pageSize + 1);
  const hasMore = rows.length > page.pageSize;
  const pageRows = hasMore ? rows.slice(0, page.pageSize) : rows;
  const last = pageRows.at(-1);
  return {
    events: pageRows.map(toAuditEvent),
    hasMore,
    nextCursor: hasMore && last ? encodeKeysetCursor({ at: last.occurredAt, id: last.id }, hash) : undefined,
  };
}

/** The filters GET /v1/audit-events's nextPageUrl repeats (lib/http/next-page-link.ts), in their order there. */
export const AUDIT_PAGE_FILTERS = [
  "occurredAt[gte]",
  "occurredAt[lte]",
  "action",
  "actorType",
  "actorId",
  "account",
] as const satisfies readonly (keyof ListAuditEventsQuery)[];
