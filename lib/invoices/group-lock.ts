import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/** Advisory lock class of the invoice run (the first key of the two-key form; the group's hash is the second). */
const INVOICE_LOCK_CLASS = 727_280;

export interface GroupForInvoicing {
  id: string;
  name: string;
  currency: string;
  timeZone: string;
  billingMode: "prepaid" | "postpaid";
  taxRatePpm: number;
  /** The account that invoices this one (docs/contract.md "Reseller tiers"): its parent; null: the operator. */
  parentId: string | null;
  parentName: string | null;
  /** The parent's billing details (lib/billing/billing-details.ts): what its documents say of it; "" when unset. */
  parentBillingName: string | null;
  parentBillingAddress: string | null;
  parentTaxId: string | null;
}

/**
 * In an issuing transaction: waits for every other issue of these groups' documents to commit (transaction-level
 * advisory locks on the groups, taken in the order of their keys so two batches never wait on each other in a
 * circle), then reads the groups. The statements after it see whatever the other issues committed.
 */
export async function lockGroupsForInvoicing(
  tx: Executor,
  groupIds: readonly string[],
): Promise<Map<string, GroupForInvoicing>> {
  if (groupIds.length === 0) return new Map();
  const ids = JSON.stringify([...new Set(groupIds)]);
  await queryRows(
    tx,
    sql`SELECT count(pg_advisory_xact_lock(${INVOICE_LOCK_CLASS}, k)) FROM (
          SELECT DISTINCT hashtext(g) AS k FROM json_array_elements_text(${ids}::json) AS g ORDER BY k
        ) AS keys`,
  );
  const rows = await queryRows<GroupForInvoicing>(
    tx,
    sql`SELECT g.id, g.name, g.currency, g.time_zone AS "timeZone", g.billing_mode AS "billingMode",
               g.tax_rate_ppm AS "taxRatePpm", g.parent_id AS "parentId", p.name AS "parentName",
               p.billing_name AS "parentBillingName", p.billing_address AS "parentBillingAddress",
               p.tax_id AS "parentTaxId"
        FROM billing_groups g LEFT JOIN billing_groups p ON p.id = g.parent_id WHERE g.id IN (SELECT json_array_elements_text(${ids}::json))`,
  );
  return new Map(rows.map((g) => [g.id, { ...g, taxRatePpm: Number(g.taxRatePpm) }]));
}

/** lockGroupsForInvoicing of one group; undefined: no such group. */
export async function lockGroupForInvoicing(tx: Executor, groupId: string): Promise<GroupForInvoicing | undefined> {
  return (await lockGroupsForInvoicing(tx, [groupId])).get(groupId);
}
