import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createBillingGroup, getBillingGroup, setBillingGroupDisabledByOperator } from "./groups";
import { topUp } from "./testing/top-up";

describeOnEngines("billing groups", (handle) => {
  it("records the opening balance and top-ups in the ledger, exactly", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Acme",
      currency: "EUR",
      openingBalanceMicros: 100_000_001n,
    });
    await topUp(handle().db, group.id, 2_500_000n);
    const reloaded = await getBillingGroup(handle().db, group.id);
    expect(reloaded?.balanceMicros).toBe(102_500_001n);
    const [sum] = await queryRows<{ total: bigint }>(
      handle().db,
      sql`SELECT COALESCE(SUM(amount_micros), 0)::bigint AS total FROM ledger_entries WHERE billing_group_id = ${group.id}`,
    );
    expect(BigInt(sum.total)).toBe(102_500_001n);
  });

  it("derives disabled from the operator flag and the credit limit", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Zero",
      currency: "USD",
      creditLimitMicros: 5_000_000n,
    });
    expect(group.disabled).toBe(false);
    await handle().db.execute(sql`UPDATE billing_groups SET balance_micros = -5000000 WHERE id = ${group.id}`);
    expect((await getBillingGroup(handle().db, group.id))?.disabled).toBe(true);
    await topUp(handle().db, group.id, 1n);
    expect((await getBillingGroup(handle().db, group.id))?.disabled).toBe(false);
    await setBillingGroupDisabledByOperator(handle().db, group.id, true);
    await topUp(handle().db, group.id, 10_000_000n);
    expect((await getBillingGroup(handle().db, group.id))?.disabled).toBe(true);
  });

  it("refuses a non-positive top-up", async () => {
    const group = await createBillingGroup(handle().db, { name: "Neg", currency: "USD" });
    await expect(topUp(handle().db, group.id, 0n)).rejects.toThrow(RangeError);
  });
});
