import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase, queryRows, type DbHandle } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createTestDatabase } from "@/lib/testing/engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { ingestCdrs } from "./ingest-cdrs";
import { nativeCdrSchema, type NativeCdr } from "./schemas";
import { runConcurrentBatches } from "./testing/concurrent-batches";

const OPENING = 1_000_000_000n;
const PER_CUSTOMER = 400;

// Concurrent batches for two customers under one reseller (and a third under the reseller's parent) debit the shared
// ancestors at once: each transaction locks its groups' rows in one global order (sorted ids), so none deadlocks,
// and every balance stays its ledger's sum.
describe("concurrent ingest under shared resellers on PostgreSQL", () => {
  let handle: DbHandle;
  let url: string;
  let drop: () => Promise<void>;
  const ids: Record<string, string> = {};
  let cdrs: NativeCdr[] = [];

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    handle = await openDatabase({ url });
    const mk = async (name: string, deck: string, parentId?: string) => {
      const g = await createBillingGroup(handle.db, { name, currency: "USD", openingBalanceMicros: OPENING, parentId });
      await importSellRates(handle.db, g.id, parseRateCsv(`prefix,rate,increment\n${deck}`), undefined, {
        effectiveFrom: new Date("2020-01-01T00:00:00Z"),
      });
      ids[name] = g.id;
    };
    await mk("R1", "44,0.010,60/60\n49,0.02,1/1\n");
    await mk("R2", "44,0.015,6/6\n49,0.03,1/1\n", ids.R1);
    await mk("C1", "44,0.02,1/1\n49,0.05,1/1\n", ids.R2);
    await mk("C2", "44,0.025,1/1\n49,0.04,30/6\n", ids.R2);
    await mk("C3", "44,0.03,1/1\n", ids.R1);
    const start = Date.parse("2025-05-01T00:00:00Z");
    cdrs = ["C1", "C2", "C3"].flatMap((name) =>
      Array.from({ length: PER_CUSTOMER }, (_, i) =>
        nativeCdrSchema.parse({
          uuid: `tc-${name}-${i}`,
          direction: "outbound",
          from: "4930000000",
          to: i % 2 ? "442071234567" : "4915112345678",
          startTime: new Date(start + i * 1000).toISOString(),
          answerTime: new Date(start + i * 1000 + 2000).toISOString(),
          endTime: new Date(start + i * 1000 + 2000 + 1 + ((i * 7919) % 600_000)).toISOString(),
          billingGroupId: ids[name],
        }),
      ),
    );
  });

  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  async function exactness() {
    return queryRows<{ id: string; balance: string; ledger: string; debits: number; charged: string }>(
      handle.db,
      sql`SELECT g.id, g.balance_micros::text AS balance,
            (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries l WHERE l.billing_group_id = g.id)::text AS ledger,
            (SELECT count(*) FROM ledger_entries l WHERE l.billing_group_id = g.id AND kind = 'debit')::int AS debits,
            ((SELECT coalesce(sum(price_micros), 0) FROM calls c WHERE c.billing_group_id = g.id)
              + (SELECT coalesce(sum(price_micros), 0) FROM call_tier_charges t WHERE t.tier_group_id = g.id))::text AS charged
          FROM billing_groups g ORDER BY g.id`,
    );
  }

  it("debits every tier once per call under concurrent, overlapping batches, without a deadlock", async () => {
    // Small batches, many at once: the balance updates of concurrent transactions interleave often (with the groups
    // locked in a random order instead of sorted, this counted 8 deadlocks).
    const send = (seed: number) =>
      Promise.all([
        runConcurrentBatches(cdrs, 4, 8, seed, (batch) => ingestCdrs(handle.db, batch)),
        runConcurrentBatches(cdrs.slice(200, 900), 3, 8, seed + 1, (batch) => ingestCdrs(handle.db, batch)),
      ]);
    const [a, b] = await send(1);
    expect(a.created + b.created).toBe(cdrs.length);
    const after = await exactness();
    expect(after).toHaveLength(5);
    for (const g of after) {
      expect(g.balance, g.id).toBe(g.ledger);
      expect(BigInt(g.balance), g.id).toBe(OPENING - BigInt(g.charged));
    }
    // R2 is charged for C1's and C2's calls, R1 for all three customers' (every call costs something at each tier).
    const byId = new Map(after.map((g) => [g.id, g]));
    expect(byId.get(ids.R2)!.debits).toBe(2 * PER_CUSTOMER);
    expect(byId.get(ids.R1)!.debits).toBe(3 * PER_CUSTOMER);

    const replays = await send(7);
    for (const r of replays) expect(r.created).toBe(0);
    expect(await exactness()).toEqual(after);

    // withRetry would hide a deadlock: read the database's count once its backends (which flush it at exit) are gone.
    await handle.close();
    const probe = await openDatabase({ url });
    try {
      await waitUntil(
        async () =>
          (
            await queryRows<{ n: number }>(
              probe.db,
              sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
            )
          )[0].n === 0,
        "the ingest connections to close",
      );
      const [{ deadlocks }] = await queryRows<{ deadlocks: number }>(
        probe.db,
        sql`SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()`,
      );
      expect(deadlocks).toBe(0);
    } finally {
      handle = probe;
    }
  });
});
