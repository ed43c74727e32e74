import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/**
 * The reseller above an account (its parent), by the name its documents carry: its billing name, else its account's
 * name; null for an account the operator serves directly. Its customers hear from it by this name (invitation mail)
 * and pay it, never the operator's card provider (lib/payments/paid-by-reseller.ts).
 */
export async function resellerNameOf(db: Executor, groupId: string): Promise<string | null> {
  const [row] = await queryRows<{ reseller: string | null }>(
    db,
    sql`SELECT COALESCE(NULLIF(p.billing_name, ''), p.name) AS reseller
        FROM billing_groups g LEFT JOIN billing_groups p ON p.id = g.parent_id WHERE g.id = ${groupId}`,
  );
  return row?.reseller ?? null;
}
