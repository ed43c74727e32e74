import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { cursorScope, reachCondition, reachOf } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { authorizationRefusals } from "@/lib/db/schema";
import { decodeKeysetCursor, encodeKeysetCursor, scopeHash } from "@/lib/http/keyset-cursor";
import type { Refusal, RefusalCode } from "./schemas";

/** The filters GET /v1/authorizations/refusals's nextPageUrl repeats. */
export const REFUSAL_PAGE_FILTERS = ["account"] as const;

export interface RefusalListing {
  refusals: Refusal[];
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * One page of refusals, newest first, by keyset on (created_at DESC, id DESC) as the audit log pages: a group's caller
 * sees its own, a platform caller every group's (or the one `account` names).
 */
export async function listRefusals(
  db: Executor,
  principal: Principal,
  filters: { account?: string },
  page: { pageSize: number; cursor?: string },
): Promise<RefusalListing> {
  const r = authorizationRefusals;
  const reach = reachOf(principal);
  const hash = scopeHash({ listing: "authorization-refusals", group: cursorScope(reach), account: filters.account });
  const conditions: (SQL | undefined)[] = [reachCondition(reach, r.billingGroupId)];
  if (filters.account) conditions.push(eq(r.billingGroupId, filters.account));
  if (page.cursor !== undefined) {
    const after = decodeKeysetCursor(page.cursor, hash);
    conditions.push(
      sql`(${r.createdAt}, ${r.id}) < (${after.at.toISOString()}::timestamptz, ${after.id.toString()}::bigint)`,
    );
  }
  const rows = await db
    .select()
    .from(r)
    .where(and(...conditions))
    .orderBy(desc(r.createdAt), desc(r.id))
    .limit(page.pageSize + 1);
  const hasMore = rows.length > page.pageSize;
  const pageRows = hasMore ? rows.slice(0, page.pageSize) : rows;
  const last = pageRows.at(-1);
  return {
    refusals: pageRows.map((row) => ({
      id: row.id.toString(),
      billingGroupId: row.billingGroupId,
      uuid: row.uuid,
      destination: row.destination,
      code: row.code as RefusalCode,
      limit: row.limitName,
      limitValue: row.limitValue,
      currentValue: row.currentValue,
      detail: row.detail,
      createdAt: row.createdAt.toISOString(),
    })),
    hasMore,
    nextCursor: hasMore && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }, hash) : undefined,
  };
}
