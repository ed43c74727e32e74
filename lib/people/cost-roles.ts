import { sql } from "drizzle-orm";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { roleSchema, type Role } from "@/lib/auth/roles";
import { queryRows, type Db } from "@/lib/db/client";

/**
 * The member roles of a billing group that see buy cost and margin (calls:read_cost): the operator makes a customer
 * a reseller this way (admin CLI `groups cost-roles`). Empty: nobody in the group sees cost. Takes effect at every
 * member's next request (the trigger of migration 0014 drops every process's principal cache).
 */
export async function setCostRoles(db: Db, billingGroupId: string, roles: readonly Role[]): Promise<Role[] | null> {
  const list = [...new Set(roles.map((r) => roleSchema.parse(r)))];
  const rows = await queryRows<{ cost_roles: string[] }>(
    db,
    sql`UPDATE billing_groups SET cost_roles = ${`{${list.join(",")}}`}::text[] WHERE id = ${billingGroupId}
      RETURNING cost_roles`,
  );
  principalCacheFor(db).invalidate();
  return rows[0] ? (rows[0].cost_roles as Role[]) : null;
}
