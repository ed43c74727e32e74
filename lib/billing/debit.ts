import { sql } from "drizzle-orm";
import type { StoredCall } from "@/lib/calls/stored-call";
import type { Executor } from "@/lib/db/client";

/**
 * Lowers each group's balance by the price of its rated calls: one atomic UPDATE per group (no
 * read-modify-write in JS), groups in id order so concurrent multi-group batches cannot deadlock.
 */
export async function debitBalances(tx: Executor, charged: Pick<StoredCall, "billingGroupId" | "rated" | "priceMicros">[]): Promise<void> {
  const totals = new Map<string, bigint>();
  for (const c of charged) {
    if (c.rated && c.priceMicros > 0n) totals.set(c.billingGroupId, (totals.get(c.billingGroupId) ?? 0n) + c.priceMicros);
  }
  for (const groupId of [...totals.keys()].sort()) {
    const total = totals.get(groupId)!;
    await tx.execute(sql`UPDATE billing_groups SET balance_micros = balance_micros - ${total.toString()}::bigint WHERE id = ${groupId}`);
  }
}
