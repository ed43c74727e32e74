import { sql } from "drizzle-orm";
import { createBillingGroup } from "@/lib/billing/groups";
import { moveBalances } from "@/lib/billing/ledger";
import { queryRows, type Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import type { NativeCdr } from "@/lib/ingest/schemas";
import { formatMicros, MICROS_PER_UNIT, parseMicros } from "@/lib/money/micros";
import { setCostRoles } from "@/lib/people/cost-roles";
import { importSellRates } from "@/lib/rating/import-rates";
import type { RateRow } from "@/lib/rating/schemas";

/**
 * A reseller tier in the demo (issue 32, docs/contract.md "Reseller tiers", §21): a root reseller whose owner has the
 * cost view, buying from the operator at its own deck (60 % of the customer's rates), and one customer of its own. The
 * customer's calls are ingested as every call is: rated at the customer's deck and at the reseller's, each tier
 * debited (call_tier_charges hold the reseller's price).
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
  const customer = await createBillingGroup(db, {
    name: "Reseller's Customer Co",
    currency: "USD",
    parentId: reseller.id,
    createdAt: since,
  });
  // What the reseller pays the operator: 60 % of its customer's rates (integer micros), its own dated deck.
  await importSellRates(
    db,
    reseller.id,
    options.rates.map((r) => ({ ...r, rate: formatMicros((parseMicros(r.rate) * 6n) / 10n) })),
  );
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
