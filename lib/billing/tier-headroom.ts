import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/**
 * What an account may still pay out to its customers or spend, in micro-units, never below 0: its balance plus its
 * credit limit less what is held for calls in flight at it and in its subtree (tier_headroom, migration 0038, the
 * figure a reseller's top-up is checked against in moveBalances). Null for an unknown account.
 */
export async function headroomOf(db: Executor, groupId: string): Promise<bigint | null> {
  const [row] = await queryRows<{ headroom: string }>(
    db,
    sql`SELECT greatest(tier_headroom(id, balance_micros, credit_limit_micros), 0)::text AS headroom
        FROM billing_groups WHERE id = ${groupId}`,
  );
  return row ? BigInt(row.headroom) : null;
}
