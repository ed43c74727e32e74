import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup, setBillingGroupDisabledByOperator } from "@/lib/billing/groups";
import { topUp } from "@/lib/billing/testing/top-up";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { addWebhookEndpoint, listBalanceThresholds, setBalanceThresholds } from "./webhooks";

interface EventRow {
  id: string;
  type: string;
  body: string;
}

describeOnEngines("balance alerts (outbox trigger)", (handle, engine) => {
  const saved = process.env.WEBHOOKS_ALLOW_PRIVATE;
  beforeAll(async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    else process.env.WEBHOOKS_ALLOW_PRIVATE = saved;
  });

  const events = (groupId: string) =>
    queryRows<EventRow>(
      handle().db,
      sql`SELECT id, type, body FROM webhook_events WHERE billing_group_id = ${groupId} ORDER BY seq`,
    );
  const summary = async (groupId: string) =>
    (await events(groupId)).map((e) => {
      const data = (JSON.parse(e.body) as { data: { threshold?: number; balance: number } }).data;
      return `${e.type}${data.threshold === undefined ? "" : `@${data.threshold}`} (${data.balance})`;
    });
  const setBalance = (groupId: string, micros: bigint) =>
    handle().db.execute(
      sql`UPDATE billing_groups SET balance_micros = ${micros.toString()}::bigint WHERE id = ${groupId}`,
    );

  it("fires balance.low once per downward crossing and balance.recovered once per upward one, never while the balance stays on one side", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Alerts",
      currency: "USD",
      openingBalanceMicros: 100_000_000n,
      creditLimitMicros: 50_000_000n,
    });
    await setBalanceThresholds(handle().db, group.id, [50_000_000n, 10_000_000n]);
    for (const balance of [60n, 40n, 30n, 50n, 5n, 4n, 20n, 15n, 8n, 10n])
      await setBalance(group.id, balance * 1_000_000n);
    await topUp(handle().db, group.id, 190_000_000n);
    expect(await summary(group.id)).toEqual([
      "balance.low@50 (40)",
      "balance.low@10 (5)",
      "balance.recovered@10 (20)",
      "balance.low@10 (8)",
      "balance.recovered@10 (200)",
      "balance.recovered@50 (200)",
    ]);
    expect((await listBalanceThresholds(handle().db, group.id)).map((t) => t.crossed)).toEqual([false, false]);
  });

  it("does not fire for a threshold the balance is already below when it is set; fires at its next crossing", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Below",
      currency: "USD",
      openingBalanceMicros: 5_000_000n,
      creditLimitMicros: 100_000_000n,
    });
    expect((await setBalanceThresholds(handle().db, group.id, [10_000_000n]))[0].crossed).toBe(true);
    await setBalance(group.id, 1_000_000n);
    expect(await summary(group.id)).toEqual([]);
    await topUp(handle().db, group.id, 20_000_000n);
    expect(await summary(group.id)).toEqual(["balance.recovered@10 (21)"]);
  });

  it("fires group.disabled / group.enabled when `disabled` flips (credit limit reached, top-up, operator)", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Flip",
      currency: "EUR",
      openingBalanceMicros: 1_000_000n,
    });
    await setBalance(group.id, 0n);
    await setBalance(group.id, -1n);
    await topUp(handle().db, group.id, 2n);
    await setBillingGroupDisabledByOperator(handle().db, group.id, true);
    await setBillingGroupDisabledByOperator(handle().db, group.id, true);
    await setBillingGroupDisabledByOperator(handle().db, group.id, false);
    expect(await summary(group.id)).toEqual([
      "group.disabled (0)",
      "group.enabled (0.000001)",
      "group.disabled (0.000001)",
      "group.enabled (0.000001)",
    ]);
    const [first] = await events(group.id);
    expect(JSON.parse(first.body)).toEqual({
      type: "group.disabled",
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: { billingGroupId: group.id, name: "Flip", currency: "EUR", balance: 0, creditLimit: 0, disabled: true },
    });
    expect(first.id).toMatch(/^msg_[0-9a-f]{32}$/);
  });

  it("writes the event in the debit's transaction: an ingest crossing a threshold writes it, a rolled-back one writes nothing", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Ingest",
      currency: "USD",
      openingBalanceMicros: 1_000_000n,
    });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.60,1/1\n"));
    await setBalanceThresholds(handle().db, group.id, [500_000n]);
    await handle()
      .db.transaction(async (tx) => {
        await tx.execute(sql`UPDATE billing_groups SET balance_micros = 0 WHERE id = ${group.id}`);
        throw new Error("rollback");
      })
      .catch(() => undefined);
    expect(await summary(group.id)).toEqual([]);
    const cdr = nativeCdrSchema.parse({
      uuid: `alert-${engine}`,
      billingGroupId: group.id,
      direction: "outbound",
      from: "1",
      to: "4420",
      startTime: "2025-03-01T10:00:00Z",
      answerTime: "2025-03-01T10:00:00Z",
      endTime: "2025-03-01T10:01:00Z",
    });
    await ingestCdrs(handle().db, [cdr]);
    await ingestCdrs(handle().db, [cdr]); // replay: debits nothing, fires nothing
    expect(await summary(group.id)).toEqual(["balance.low@0.5 (0.4)"]);
  });

  it("queues one delivery per matching endpoint: global ones and the group's own", async () => {
    const a = await createBillingGroup(handle().db, { name: "A", currency: "USD", openingBalanceMicros: 10_000_000n });
    const b = await createBillingGroup(handle().db, { name: "B", currency: "USD", openingBalanceMicros: 10_000_000n });
    const all = await addWebhookEndpoint(handle().db, { url: "http://127.0.0.1:9/all" });
    const onlyA = await addWebhookEndpoint(handle().db, { url: "http://127.0.0.1:9/a", billingGroupId: a.id });
    await addWebhookEndpoint(handle().db, { url: "http://127.0.0.1:9/b", billingGroupId: b.id });
    await setBalanceThresholds(handle().db, a.id, [5_000_000n]);
    await setBalance(a.id, 1_000_000n);
    const rows = await queryRows<{ endpoint_id: string }>(
      handle().db,
      sql`SELECT d.endpoint_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.billing_group_id = ${a.id} ORDER BY d.endpoint_id`,
    );
    expect(rows.map((r) => r.endpoint_id).sort()).toEqual([all.id, onlyA.id].sort());
  });
});
