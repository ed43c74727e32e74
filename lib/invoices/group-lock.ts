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
}

/**
 * In an issuing transaction: waits for every other issue of the group's documents to commit (a transaction-level
 * advisory lock on the group, so two processes never issue for one group at once), then reads the group. The
 * statements after it see whatever the other issue committed. Undefined: no such group.
 */
export async function lockGroupForInvoicing(tx: Executor, groupId: string): Promise<GroupForInvoicing | undefined> {
  const [group] = await queryRows<GroupForInvoicing>(
    tx,
    sql`SELECT g.id, g.name, g.currency, g.time_zone AS "timeZone", g.billing_mode AS "billingMode",
               g.tax_rate_ppm AS "taxRatePpm"
        FROM (SELECT pg_advisory_xact_lock(${INVOICE_LOCK_CLASS}, hashtext(${groupId}))) AS locked, billing_groups g
        WHERE g.id = ${groupId}`,
  );
  return group;
}
