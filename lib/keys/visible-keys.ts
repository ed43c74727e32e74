import { and, eq, type SQL } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { reachCondition, reachOf } from "@/lib/auth/reach";
import { apiKeys } from "@/lib/db/schema";

/**
 * The keys a principal may see and manage: its group's, or every key for a platform principal. One condition for
 * listing and revoking, so another group's key is unknown (404) exactly as it is invisible.
 */
export function visibleKeys(principal: Principal, account?: string): SQL | undefined {
  return and(
    reachCondition(reachOf(principal), apiKeys.billingGroupId),
    account === undefined ? undefined : eq(apiKeys.billingGroupId, account),
  );
}
