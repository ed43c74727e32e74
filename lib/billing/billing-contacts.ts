import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

export interface BillingContact {
  billingGroupId: string;
  userId: string;
  email: string;
}

/** Who hears about a group's money (invoices issued, a failed auto-recharge): the owner and billing members. */
export async function billingContacts(tx: Executor, groupIds: readonly string[]): Promise<BillingContact[]> {
  if (groupIds.length === 0) return [];
  const groups = JSON.stringify([...new Set(groupIds)]);
  const rows = await queryRows<{ billing_group_id: string; user_id: string; email: string }>(
    tx,
    sql`SELECT DISTINCT o.billing_group_id, u.id AS user_id, u.email
        FROM organizations o JOIN members m ON m.organization_id = o.id JOIN users u ON u.id = m.user_id
        WHERE o.billing_group_id IN (SELECT json_array_elements_text(${groups}::json)) AND m.role IN ('owner', 'billing')
        ORDER BY u.email`,
  );
  return rows.map((r) => ({ billingGroupId: r.billing_group_id, userId: r.user_id, email: r.email }));
}
