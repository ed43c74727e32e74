import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { priceBilledSeconds } from "@/lib/money/charge";
import { billableSeconds } from "@/lib/rating/billing-math";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls, rerateUnratedCalls } from "@/lib/rating/rerate";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { ingestCdrs } from "./ingest-cdrs";
import { nativeCdrSchema } from "./schemas";

/** A deck's rates, written out here so the expected charges never go through the rating code. */
interface Rate {
  rate: bigint;
  min: number;
  interval: number;
  connectFee?: bigint;
  minCharge?: bigint;
}
type Deck = Record<string, Rate>;

const csvOf = (deck: Deck) =>
  "prefix,rate,increment,connectFee,minCharge\n" +
  Object.entries(deck)
    .map(
      ([p, r]) =>
        `${p},${(Number(r.rate) / 1e6).toFixed(6)},${r.min}/${r.interval},${r.connectFee === undefined ? "" : (Number(r.connectFee) / 1e6).toFixed(6)},${r.minCharge === undefined ? "" : (Number(r.minCharge) / 1e6).toFixed(6)}`,
    )
    .join("\n");

/** docs/contract.md §1 at a deck: longest prefix, increment, connect fee, minimum; null when no prefix matches. */
function expectedCharge(deck: Deck, to: string, answered: number): bigint | null {
  const prefix = Object.keys(deck)
    .filter((p) => to.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return null;
  const r = deck[prefix];
  return priceBilledSeconds(r.rate, billableSeconds(answered, { min: r.min, interval: r.interval }), {
    connectFeeMicros: r.connectFee,
    minChargeMicros: r.minCharge,
  }).micros;
}

const OLD = new Date("2020-01-01T00:00:00Z");
const SUPPLIER: Deck = { "44": { rate: 4_000n, min: 1, interval: 1 }, "49": { rate: 9_000n, min: 1, interval: 1 } };
// What R1 (a root reseller) pays the operator, R2 pays R1, C pays R2; D is a root customer. Increments differ per tier.
const R1_DECK: Deck = {
  "44": { rate: 10_000n, min: 60, interval: 60 },
  "49": { rate: 20_000n, min: 30, interval: 6, connectFee: 1_000n },
};
const R2_DECK: Deck = { "44": { rate: 15_000n, min: 30, interval: 6, minCharge: 9_000n } }; // no 49: unrated at R2
const C_DECK: Deck = { "44": { rate: 21_300n, min: 1, interval: 1 }, "49": { rate: 50_000n, min: 6, interval: 6 } };
const D_DECK: Deck = { "44": { rate: 30_000n, min: 6, interval: 6 } };

describeOnEngines("reseller tiers: every tier rated and debited in the ingest transaction", (handle) => {
  const db = () => handle().db;
  const OPENING = 100_000_000n;

  async function tree() {
    const mk = async (name: string, deck: Deck, parentId?: string) => {
      const g = await createBillingGroup(db(), { name, currency: "EUR", openingBalanceMicros: OPENING, parentId });
      await importSellRates(db(), g.id, parseRateCsv(csvOf(deck)), undefined, { effectiveFrom: OLD });
      return g.id;
    };
    const r1 = await mk("R1", R1_DECK);
    const r2 = await mk("R2", R2_DECK, r1);
    const c = await mk("C", C_DECK, r2);
    const d = await mk("D", D_DECK);
    const supplier = await createSupplier(db(), { name: `S-${r1}`, gatewayName: `gw-${r1}` });
    await importBuyRates(db(), supplier.id, parseRateCsv(csvOf(SUPPLIER)), undefined, { effectiveFrom: OLD });
    return { r1, r2, c, d, supplierId: supplier.id };
  }

  /** `n` calls of `group`: destinations in 44 and 49, answered 0..~5 minutes with fractional seconds. */
  function calls(group: string, supplierId: string, n: number) {
    return Array.from({ length: n }, (_, i) => {
      const start = Date.parse("2025-04-01T08:00:00Z") + i * 60_000;
      const answeredMs = i % 7 === 0 ? null : 250 + ((i * 7919) % 300_000);
      return nativeCdrSchema.parse({
        uuid: `tier-${group}-${i}`,
        direction: "outbound",
        from: "4930000000",
        to: i % 3 === 0 ? "4915112345678" : "442071234567",
        startTime: new Date(start).toISOString(),
        answerTime: answeredMs === null ? null : new Date(start + 3000).toISOString(),
        endTime: new Date(start + 3000 + (answeredMs ?? 0)).toISOString(),
        billingGroupId: group,
        supplierId,
      });
    });
  }

  interface CallRow {
    id: string;
    billing_group_id: string;
    to_number: string;
    answered: number;
    rated: boolean;
    price_micros: string;
    buy_cost_micros: string | null;
  }
  interface ChargeRow {
    call_id: string;
    tier_group_id: string;
    depth: number;
    rated: boolean;
    price_micros: string;
  }

  /** Balance = ledger for each group, each tier charge = the rate math at its deck, margins add up per call. */
  async function expectExact(groups: string[], decks: Record<string, Deck>, chains: Record<string, string[]>) {
    const balances = await queryRows<{ id: string; balance: string; ledger: string }>(
      db(),
      sql`SELECT g.id, g.balance_micros::text AS balance,
            (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries l WHERE l.billing_group_id = g.id)::text AS ledger
          FROM billing_groups g WHERE g.id IN (SELECT json_array_elements_text(${JSON.stringify(groups)}::json))`,
    );
    expect(balances).toHaveLength(groups.length);
    for (const b of balances) expect(b.balance, b.id).toBe(b.ledger);
    const rows = await queryRows<CallRow>(
      db(),
      sql`SELECT id::text AS id, billing_group_id, to_number, rated, price_micros::text AS price_micros,
            buy_cost_micros::text AS buy_cost_micros,
            CASE WHEN answer_time IS NULL THEN 0 ELSE ceil(extract(epoch FROM end_time - answer_time))::int END AS answered
          FROM calls WHERE billing_group_id IN (SELECT json_array_elements_text(${JSON.stringify(groups)}::json))`,
    );
    const charges = await queryRows<ChargeRow>(
      db(),
      sql`SELECT call_id::text AS call_id, tier_group_id, depth, rated, price_micros::text AS price_micros
          FROM call_tier_charges WHERE billing_group_id IN (SELECT json_array_elements_text(${JSON.stringify(groups)}::json))`,
    );
    const byCall = new Map<string, ChargeRow[]>();
    for (const ch of charges) byCall.set(ch.call_id, [...(byCall.get(ch.call_id) ?? []), ch]);
    for (const call of rows) {
      const chain = chains[call.billing_group_id];
      const tiers = (byCall.get(call.id) ?? []).sort((a, b) => a.depth - b.depth);
      expect(tiers.map((t) => t.tier_group_id)).toEqual(chain);
      const own = expectedCharge(decks[call.billing_group_id], call.to_number, call.answered);
      expect(call.price_micros).toBe(String(own ?? 0n));
      for (const t of tiers) {
        const charge = expectedCharge(decks[t.tier_group_id], call.to_number, call.answered);
        expect(t.rated, `${t.tier_group_id} ${call.to_number}`).toBe(charge !== null);
        expect(t.price_micros).toBe(String(charge ?? 0n));
      }
      // Margins: each tier's is what its child pays it minus what it pays its parent; the operator's is the top
      // tier's charge minus the carrier cost. Their sum is the customer's price minus the carrier cost.
      const paid = [BigInt(call.price_micros), ...tiers.map((t) => BigInt(t.price_micros))];
      const buy = BigInt(call.buy_cost_micros ?? "0");
      const margins = [...paid.slice(1).map((p, i) => paid[i] - p), paid[paid.length - 1] - buy];
      expect(margins.reduce((a, m) => a + m, 0n)).toBe(BigInt(call.price_micros) - buy);
    }
    return { rows, charges };
  }

  const balanceOf = async (id: string) =>
    BigInt(
      (
        await queryRows<{ b: string }>(db(), sql`SELECT balance_micros::text AS b FROM billing_groups WHERE id = ${id}`)
      )[0].b,
    );

  it("rates every tier at its own deck, debits each tier once, and stays exact through replays and re-rating", async () => {
    const { r1, r2, c, d, supplierId } = await tree();
    const groups = [r1, r2, c, d];
    const chains = { [c]: [r2, r1], [d]: [], [r2]: [r1], [r1]: [] };
    const decks: Record<string, Deck> = { [r1]: R1_DECK, [r2]: R2_DECK, [c]: C_DECK, [d]: D_DECK };
    const cCalls = calls(c, supplierId, 60);
    const mixed = [...cCalls.slice(0, 40), ...calls(d, supplierId, 10), ...calls(r2, supplierId, 5)];
    const first = await ingestCdrs(db(), mixed);
    expect(first.every((o) => o.status === "created")).toBe(true);
    // A replay of the whole batch with new calls: only the new ones are stored and debited, at every tier.
    const second = await ingestCdrs(db(), [...cCalls.slice(20), ...cCalls.slice(30, 35)]);
    expect(second.filter((o) => o.status === "created")).toHaveLength(20);

    const { charges } = await expectExact(groups, decks, chains);
    // 49 has no rate at R2: those charges are unrated, price 0, not debited; R1 still rates (and pays for) them.
    expect(charges.some((t) => t.tier_group_id === r2 && !t.rated)).toBe(true);
    expect(charges.some((t) => t.tier_group_id === r1 && t.rated && t.price_micros !== "0")).toBe(true);
    // Each tier's balance moved by what it pays for its own calls and its descendants' calls.
    const paidBy = (id: string) =>
      charges.filter((t) => t.tier_group_id === id).reduce((a, t) => a + BigInt(t.price_micros), 0n);
    const [{ r2own }] = await queryRows<{ r2own: string }>(
      db(),
      sql`SELECT coalesce(sum(price_micros), 0)::text AS r2own FROM calls WHERE billing_group_id = ${r2}`,
    );
    expect(await balanceOf(r2)).toBe(OPENING - paidBy(r2) - BigInt(r2own));
    const [{ debits }] = await queryRows<{ debits: number }>(
      db(),
      sql`SELECT count(*)::int AS debits FROM ledger_entries WHERE billing_group_id = ${r1} AND kind = 'debit'`,
    );
    expect(debits).toBe(charges.filter((t) => t.tier_group_id === r1 && t.price_micros !== "0").length);

    // R2 adds the missing 49: the default rerate rates (and debits) R2's unrated charges, once even when run twice.
    const r2Added: Deck = { ...R2_DECK, "49": { rate: 35_000n, min: 1, interval: 1 } };
    await importSellRates(db(), r2, parseRateCsv(csvOf(r2Added)), undefined, {
      effectiveFrom: new Date("2021-01-01T00:00:00Z"),
    });
    const [a, b] = await Promise.all([rerateUnratedCalls(db()), rerateUnratedCalls(db())]);
    expect(a.tiersRated + b.tiersRated).toBe(charges.filter((t) => t.tier_group_id === r2 && !t.rated).length);
    decks[r2] = r2Added;
    await expectExact(groups, decks, chains);

    // R1's operator price changes from before the calls: a rerate with `since` re-rates every tier, with adjustments.
    const r1Changed: Deck = {
      "44": { rate: 11_000n, min: 1, interval: 1 },
      "49": { rate: 18_000n, min: 6, interval: 6 },
    };
    await importSellRates(db(), r1, parseRateCsv(csvOf(r1Changed)), undefined, {
      effectiveFrom: new Date("2022-01-01T00:00:00Z"),
    });
    const before = await balanceOf(r1);
    const result = await rerateCalls(db(), { since: new Date("2025-01-01T00:00:00Z") });
    expect(result.tiersRerated).toBeGreaterThan(0);
    decks[r1] = r1Changed;
    await expectExact(groups, decks, chains);
    const [{ adjusted }] = await queryRows<{ adjusted: string }>(
      db(),
      sql`SELECT coalesce(sum(amount_micros), 0)::text AS adjusted FROM ledger_entries
          WHERE billing_group_id = ${r1} AND kind = 'adjustment'`,
    );
    expect(await balanceOf(r1)).toBe(before + BigInt(adjusted));
    expect(BigInt(adjusted)).not.toBe(0n);
    // Nothing left to change.
    expect(await rerateCalls(db(), { since: new Date("2025-01-01T00:00:00Z") })).toMatchObject({
      tiersRated: 0,
      tiersRerated: 0,
    });
  });

  it("costs a root account's batch nothing at the tiers: no tier charge, no extra entry", async () => {
    const { d, supplierId } = await tree();
    await ingestCdrs(db(), calls(d, supplierId, 5));
    const [{ n }] = await queryRows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM call_tier_charges WHERE billing_group_id = ${d}`,
    );
    expect(n).toBe(0);
  });
});
