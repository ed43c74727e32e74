import { and, inArray } from "drizzle-orm";
import { reachCondition, reachOf } from "@/lib/auth/reach";
import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";

/**
 * Each account's own time zone (billing_groups.time_zone, the zone of its invoices) in the principal's reach, by id:
 * the zone every period about one account is cut in on the portal's screens (docs/contract.md "Periods on screens").
 * `only`: just these accounts (a screen about one account need not read every account's).
 */
export async function accountTimeZones(
  db: Executor,
  principal: Principal,
  only?: readonly string[],
): Promise<Record<string, string>> {
  const rows = await db
    .select({ id: billingGroups.id, timeZone: billingGroups.timeZone })
    .from(billingGroups)
    .where(
      and(
        reachCondition(reachOf(principal), billingGroups.id),
        only ? inArray(billingGroups.id, [...only]) : undefined,
      ),
    );
  return Object.fromEntries(rows.map((r) => [r.id, r.timeZone]));
}
