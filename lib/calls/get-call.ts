import { and, eq, getTableColumns } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { reachCondition, reachOf } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import type { CallDetail, CallDetailWithCost } from "./schemas";
import { serializeCallDetail, tierColumns } from "./serialize-call";

const MAX_BIGINT = 9_223_372_036_854_775_807n;

function notFound(id: string): ApiError {
  return new ApiError("not_found", `No call with id ${JSON.stringify(id.slice(0, 64))}.`);
}

/**
 * One call by id. Unknown, malformed and other groups' ids all answer the same 404, so a key
 * cannot learn that another group's call exists (docs/contract.md §3).
 */
export async function getCall(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<CallDetail | CallDetailWithCost> {
  if (!/^\d{1,19}$/.test(id) || BigInt(id) > MAX_BIGINT) throw notFound(id);
  const where = and(eq(calls.id, BigInt(id)), reachCondition(reachOf(principal), calls.billingGroupId));
  const [row] = await db
    .select({ ...getTableColumns(calls), ...tierColumns(principal) })
    .from(calls)
    .where(where)
    .limit(1);
  if (!row) throw notFound(id);
  return serializeCallDetail(row, principal);
}
