import { sql } from "drizzle-orm";
import type { StoredCall } from "@/lib/calls/stored-call";
import { queryRows, type Executor } from "@/lib/db/client";

/** Lowers each group's balance by the price of its rated calls (see debitGroups). */
export async function debitBalances(
  tx: Executor,
  charged: Pick<StoredCall, "billingGroupId" | "rated" | "priceMicros">[],
): Promise<void> {
  const totals = new Map<string, bigint>();
  for (const c of charged) {
    if (c.rated && c.priceMicros > 0n)
      totals.set(c.billingGroupId, (totals.get(c.billingGroupId) ?? 0n) + c.priceMicros);
  }
  await debitGroups(tx, totals);
}

/**
 * Lowers each group's balance by its amount (negative: raises it): one atomic UPDATE per group (no
 * read-modify-write in JS), groups in id order so concurrent multi-group batches cannot deadlock.
 */
export async function debitGroups(tx: Executor, amounts: ReadonlyMap<string, bigint>): Promise<void> {
  for (const groupId of [...amounts.keys()].sort()) {
    const amount = amounts.get(groupId)!;
    if (amount !== 0n)
      await queryRows(
        tx,
        sql`UPDATE billing_groups SET balance_micros = balance_micros - ${amount.toString()}::bigint WHERE id = ${groupId}`,
      );
  }
}
