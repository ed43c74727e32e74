import { createApiKey, revokeApiKey } from "@/lib/auth/manage-keys";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import type { Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema, type NativeCdrInput } from "@/lib/ingest/schemas";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";

/**
 * Small, self-contained data for the reliability tests, written through the domain functions
 * (the same rating and debit path the API uses) before a server starts.
 */

export const SELL_CARD: Record<string, [string, string]> = {
  "44": ["0.05", "60/60"],
  "4420": ["0.012", "60/60"],
  "1": ["0.01", "1/1"],
  "33": ["0.0333", "30/6"],
};
export const BUY_CARD: Record<string, [string, string]> = {
  "44": ["0.004", "1/1"],
  "1": ["0.002", "1/1"],
  "33": ["0.0101", "1/1"],
};
/** Destinations: rated ones and one with no prefix in the card (stored unrated, never debited). */
export const DESTINATIONS = [
  "442071234567",
  "447700900123",
  "14155550100",
  "33123456789",
  "4930123456",
  "+442079460000",
];

export function rateRows(card: Record<string, [string, string]>) {
  return Object.entries(card).map(([prefix, [rate, increment]]) => rateRowSchema.parse({ prefix, rate, increment }));
}

/** A deterministic CDR: call `i` of `prefix`, for group `billingGroupId`. */
export function makeCdr(prefix: string, i: number, billingGroupId: string, supplierId: string | null): NativeCdrInput {
  const start = Date.parse("2026-02-01T00:00:00.000Z") + i * 7_919_000;
  const unanswered = i % 7 === 3;
  const seconds = (i * 37) % 901;
  return {
    uuid: `${prefix}-${String(i).padStart(6, "0")}`,
    direction: i % 4 === 0 ? "inbound" : "outbound",
    from: `1555${String(i).padStart(7, "0")}`,
    to: DESTINATIONS[i % DESTINATIONS.length],
    startTime: new Date(start).toISOString(),
    answerTime: unanswered ? null : new Date(start + 1_500).toISOString(),
    endTime: new Date(start + 1_500 + seconds * 1000).toISOString(),
    hangupCause: unanswered ? "NO_ANSWER" : "NORMAL_CLEARING",
    q850Cause: unanswered ? 19 : 16,
    pdd: 1.5,
    billingGroupId,
    supplierId: i % 3 === 0 ? null : supplierId,
  };
}

export type FixtureKey =
  | "readAlpha"
  | "costAlpha"
  | "readBravo"
  | "platformRead"
  | "platformCost"
  | "ingestAlpha"
  | "ingestPlatform"
  | "ingestCostAlpha"
  | "revokedAlpha"
  | "alertsPlatform"
  | "alertsAlpha"
  | "ratesPlatform"
  | "provisionPlatform";

/** Keys that may see cost fields: `rates:write` reads buy decks (a dry run's margin warnings name supplier and rate). */
export const COST_KEYS: ReadonlySet<FixtureKey> = new Set([
  "costAlpha",
  "platformCost",
  "ingestCostAlpha",
  "ratesPlatform",
]);

export interface Fixture {
  alphaId: string;
  bravoId: string;
  supplierId: string;
  keys: Record<FixtureKey, string>;
  keyIds: Record<FixtureKey, string>;
  /** Ids of seeded calls: [alpha..., bravo...]. */
  alphaCallIds: string[];
  bravoCallIds: string[];
}

export async function seedFixture(db: Db, callsPerGroup = 40): Promise<Fixture> {
  const alpha = await createBillingGroup(db, {
    name: "Alpha",
    currency: "USD",
    openingBalanceMicros: 500_000_000n,
    accountcode: "alpha-ac",
  });
  const bravo = await createBillingGroup(db, { name: "Bravo", currency: "EUR", openingBalanceMicros: 80_000_000n });
  await importSellRates(db, alpha.id, rateRows(SELL_CARD));
  await importSellRates(db, bravo.id, rateRows({ "44": ["0.06", "1/1"] }));
  const supplier = await createSupplier(db, { name: "Carrier" });
  await importBuyRates(db, supplier.id, rateRows(BUY_CARD));

  const specs: Record<FixtureKey, [Scope[], string | null]> = {
    readAlpha: [["calls:read"], alpha.id],
    costAlpha: [["calls:read_cost"], alpha.id],
    readBravo: [["calls:read"], bravo.id],
    platformRead: [["calls:read"], null],
    platformCost: [["calls:read_cost"], null],
    ingestAlpha: [["cdrs:write", "calls:read"], alpha.id],
    ingestPlatform: [["cdrs:write"], null],
    ingestCostAlpha: [["cdrs:write", "calls:read_cost"], alpha.id],
    revokedAlpha: [["calls:read_cost"], alpha.id],
    alertsPlatform: [["alerts:write"], null],
    alertsAlpha: [["alerts:write"], alpha.id],
    ratesPlatform: [["rates:write"], null],
    provisionPlatform: [["accounts:write", "payments:write"], null],
  };
  const keys = {} as Record<FixtureKey, string>;
  const keyIds = {} as Record<FixtureKey, string>;
  for (const [name, [scopes, group]] of Object.entries(specs) as [FixtureKey, [Scope[], string | null]][]) {
    const created = await createApiKey(db, { scopes, billingGroupId: group, name });
    keys[name] = created.key;
    keyIds[name] = created.id;
  }
  await revokeApiKey(db, keyIds.revokedAlpha);

  const cdrs = [
    ...Array.from({ length: callsPerGroup }, (_, i) => makeCdr("seed-alpha", i, alpha.id, supplier.id)),
    ...Array.from({ length: callsPerGroup }, (_, i) => makeCdr("seed-bravo", i, bravo.id, supplier.id)),
  ].map((c) => nativeCdrSchema.parse(c));
  const outcomes = await ingestCdrs(db, cdrs);
  const ids = outcomes.map((o) => String(o.call.id));
  return {
    alphaId: alpha.id,
    bravoId: bravo.id,
    supplierId: supplier.id,
    keys,
    keyIds,
    alphaCallIds: ids.slice(0, callsPerGroup),
    bravoCallIds: ids.slice(callsPerGroup),
  };
}
