import { sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";

/**
 * Ends every session a person has in an organization: what a change of their privilege there does (a role changed,
 * the membership removed), so no cookie issued before the change, a stolen one included, carries on with either the
 * old privilege or the new one (docs/contract.md §15). They sign in again and get a new session. Deleting the rows
 * NOTIFYs callbook_auth (migration 0014): every process drops the principals it cached.
 */
export async function endSessionsIn(tx: Tx, userId: string, organizationId: string): Promise<void> {
  await tx.execute(
    sql`DELETE FROM auth_sessions WHERE user_id = ${userId} AND active_organization_id = ${organizationId}`,
  );
}
