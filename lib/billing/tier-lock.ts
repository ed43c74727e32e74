import { sql } from "drizzle-orm";
import type { Executor } from "@/lib/db/client";

/**
 * The tier locks of these accounts, in the order of their keys: the transaction-level advisory locks authorize_state
 * takes (lock_tiers, migration 0038) on an account and every ancestor before it reserves against their headroom. Whoever pays out
 * of a tier's headroom (a reseller's top-up of its customer, lib/billing/move-balance.ts) holds its lock too, so
 * the reservations it reads are exact until it commits. Take them before any row lock (the order authorization uses).
 */
export async function lockTiers(tx: Executor, groupIds: readonly string[]): Promise<void> {
  await tx.execute(
    sql`SELECT lock_tiers(ARRAY[${sql.join(
      groupIds.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[])`,
  );
}
