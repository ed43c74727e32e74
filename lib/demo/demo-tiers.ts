import { sql } from "drizzle-orm";
import { createBillingGroup } from "@/lib/billing/groups";
import { moveBalances } from "@/lib/billing/ledger";
import { queryRows, type Db } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import type { NativeCdr } from "@/lib/ingest/schemas";
import { MICROS_PER_UNIT } from "@/lib/money/micros";
import { setCostRoles } from "@/lib/people/cost-roles";
import { importSellRates } from "@/lib/rating/import-rates";
import type { RateRow } from "@/lib/rating/schemas";

/**
 * A reseller tier in the demo (issue 32, docs/contract.md §21): a root reseller whose owner has the cost view and one
 * customer of its own, whose calls carry what the reseller pays the operator for them (call_tier_charges: 60 % of the
 * customer's price). The customer's calls are ingested as every call is (rated at its card, debited); the reseller's
 * charges are written here until ingest writes them (the tier ledger), and not debited from the reseller.
 */
export interface DemoTiers {
  reseller: { id: string; name: string };
  customer: { id: string; name: string };
  calls: number;
}

const CALLS = 24;

export async function addDemoTiers(
  db: Db,
  options: { rates: RateRow[]; supplierId: string; now: Date },
): Promise<DemoTiers> {
  // Customers since the demo's first call, as the other accounts: their opening comes before any traffic.
  const [{ first }] = await queryRows<{ first: Date | string | null }>(
    db,
    sql`SELECT min(start_time) AS first FROM calls`,
  );
  const since = new Date(first === null ? options.now.getTime() - 10 * 86_400_000 : new Date(first).getTime() - 60_000);
  const reseller = await createBillingGroup(db, {
    name: "Tiered Reseller Ltd",
    currency: "USD",
    openingBalanceMicros: 500n * MICROS_PER_UNIT,
    createdAt: since,
  });
  await setCostRoles(db, reseller.id, ["owner"]);
  const [customer] = await db
    .insert(billingGroups)
    .values({
      id: newId("bg"),
      name: "Reseller's Customer Co",
      currency: "USD",
      balanceMicros: 0n,
      parentId: reseller.id,
      createdAt: since,
    })
    .returning();
  await db.transaction((tx) =>
    moveBalances(tx, [
      {
        billingGroupId: customer.id,
        kind: "topup",
        amountMicros: 200n * MICROS_PER_UNIT,
        callId: null,
        description: "Top-up (card)",
        createdAt: customer.createdAt,
      },
    ]),
  );
  await importSellRates(db, customer.id, options.rates);
  const destinations = options.rates.filter((r) => r.prefix.length >= 4).slice(0, 6);
  const cdrs: NativeCdr[] = Array.from({ length: CALLS }, (_, i) => {
    const start = options.now.getTime() - (i + 1) * 3 * 3_600_000;
    const answered = 30 + ((i * 37) % 240);
    return {
      uuid: `demo-tier-${i}`,
      direction: "outbound",
      from: "12125550100",
      to: `${destinations[i % destinations.length].prefix}5550${String(100 + i)}`,
      startTime: new Date(start).toISOString(),
      answerTime: new Date(start + 2_000).toISOString(),
      endTime: new Date(start + 2_000 + answered * 1000).toISOString(),
      hangupCause: "NORMAL_CLEARING",
      q850Cause: 16,
      pdd: null,
      readCodec: "PCMU",
      writeCodec: "PCMU",
      recordingUrl: null,
      accountcode: null,
      networkAddr: null,
      billingGroupId: customer.id,
      supplierId: options.supplierId,
      gateway: null,
    };
  });
  await ingestCdrs(db, cdrs, { debitsAtCallEnd: true });
  // The reseller's price from the operator: 60 % of its customer's, at 60 % of the rate (integer micros).
  await db.execute(sql`INSERT INTO call_tier_charges (billing_group_id, start_time, call_id, tier_group_id, depth, rated,
      matched_prefix, rate_micros, bill_duration, price_micros, rate_deck_id)
    SELECT c.billing_group_id, c.start_time, c.id, ${reseller.id}, 1, c.rated, c.matched_prefix,
      c.sell_rate_micros * 6 / 10, c.bill_duration, c.price_micros * 6 / 10, NULL
    FROM calls c WHERE c.billing_group_id = ${customer.id}`);
  const [{ n }] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM calls WHERE billing_group_id = ${customer.id}`,
  );
  return {
    reseller: { id: reseller.id, name: reseller.name },
    customer: { id: customer.id, name: customer.name },
    calls: n,
  };
}
