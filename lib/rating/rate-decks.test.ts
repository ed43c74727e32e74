import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { serializeCallDetail } from "@/lib/calls/serialize-call";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { rerateCalls } from "./rerate";
import { nativeCdrSchema, type NativeCdrInput } from "@/lib/ingest/schemas";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { diffDeck } from "./deck-diff";
import { findSellRate, getRateCard } from "./find-rate";
import { importBuyRates, importSellRates, RateDeckExistsError } from "./import-rates";
import { parseRateCsv, RateCsvError } from "./rate-csv";
import { createSupplier } from "./suppliers";

let seq = 0;
const cdr = (overrides: Partial<NativeCdrInput>) =>
  nativeCdrSchema.parse({
    uuid: `deck-${process.pid}-${++seq}-${Math.random().toString(36).slice(2)}`,
    direction: "outbound",
    from: "4930123456",
    to: "442071234567",
    ...overrides,
  });

describe("rate deck CSV with fees", () => {
  it("reads optional connectFee and minCharge columns (any case, blank = none)", () => {
    expect(parseRateCsv("prefix,rate,increment,ConnectFee,minCharge\n44,0.02,1/1,0.01,\n33,0.05,60/60,,0.1\n")).toEqual(
      [
        { prefix: "44", rate: "0.02", increment: { min: 1, interval: 1 }, connectFee: "0.01" },
        { prefix: "33", rate: "0.05", increment: { min: 60, interval: 60 }, minCharge: "0.1" },
      ],
    );
  });

  it("refuses a fee with more than 6 decimals, naming the line and column", () => {
    expect(() => parseRateCsv("prefix,rate,increment,connectFee\n44,0.02,1/1,0.1234567\n")).toThrow(RateCsvError);
    expect(() => parseRateCsv("prefix,rate,increment,connectFee\n44,0.02,1/1,0.1234567\n")).toThrow(
      /line 2: connectFee/,
    );
  });
});

describeOnEngines("dated rate decks", (handle) => {
  const one = async <T>(q: ReturnType<typeof sql>) => (await queryRows<T>(handle().db, q))[0];
  const balance = async (id: string) => (await getBillingGroup(handle().db, id))!.balanceMicros;
  const ledgerSum = async (id: string) =>
    BigInt(
      (
        await one<{ s: string }>(
          sql`SELECT COALESCE(SUM(amount_micros), 0)::text AS s FROM ledger_entries WHERE billing_group_id = ${id}`,
        )
      ).s,
    );
  const version = async (id: string) =>
    Number((await one<{ v: number }>(sql`SELECT rate_card_version AS v FROM billing_groups WHERE id = ${id}`)).v);
  const deckCount = async (id: string) =>
    Number((await one<{ n: number }>(sql`SELECT count(*)::int AS n FROM rate_decks WHERE billing_group_id = ${id}`)).n);

  it("rates each call with the deck in force at its start, also a late CDR, with connect fee and minimum", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Dated",
      currency: "EUR",
      openingBalanceMicros: 10_000_000n,
    });
    const supplier = await createSupplier(handle().db, { name: "Carrier", gatewayName: `gw-${group.id}` });
    await importBuyRates(handle().db, supplier.id, parseRateCsv("prefix,rate,increment\n44,0.004,1/1\n"));
    const a = await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n"));
    const b = await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment,connectFee,minCharge\n44,0.05,60/60,0.01,0.1\n"),
      undefined,
      { effectiveFrom: new Date("2025-06-01T00:00:00Z") },
    );
    expect(a.effectiveFrom).toEqual(new Date(0));
    expect(b.effectiveFrom).toEqual(new Date("2025-06-01T00:00:00Z"));

    const gateway = `gw-${group.id}`;
    const outcomes = await ingestCdrs(handle().db, [
      // Late: arrives after deck B exists but started 1 ms before it took effect: deck A, 62 s at 0.02/min on 1/1.
      cdr({
        billingGroupId: group.id,
        gateway,
        startTime: "2025-05-31T23:59:59.999Z",
        answerTime: "2025-06-01T00:00:04.999Z",
        endTime: "2025-06-01T00:01:06.249Z",
      }),
      // Exactly at B's start: 62 s on 60/60 -> 120 s at 0.05 = 0.1, + connect fee 0.01 = 0.11 (above the minimum 0.1).
      cdr({
        billingGroupId: group.id,
        gateway,
        startTime: "2025-06-01T00:00:00Z",
        answerTime: "2025-06-01T00:00:05Z",
        endTime: "2025-06-01T00:01:06.250Z",
      }),
      // 3 s -> 60 s: 0.05 + 0.01 = 0.06 < 0.1: the minimum applies.
      cdr({
        billingGroupId: group.id,
        gateway,
        startTime: "2025-06-02T00:00:00Z",
        answerTime: "2025-06-02T00:00:01Z",
        endTime: "2025-06-02T00:00:04Z",
      }),
      // Unanswered: neither connect fee nor minimum.
      cdr({
        billingGroupId: group.id,
        gateway,
        startTime: "2025-06-02T01:00:00Z",
        answerTime: null,
        endTime: "2025-06-02T01:00:30Z",
      }),
    ]);
    const calls = outcomes.map((o) => o.call);
    expect(
      calls.map((c) => [c.rateDeckId, c.billDuration, c.priceMicros, c.connectFeeMicros, c.minChargeMicros]),
    ).toEqual([
      [a.deckId, 62, 20_667n, null, null], // 20000 * 62 / 60 = 20666.67 -> 20667
      [b.deckId, 120, 110_000n, 10_000n, 100_000n],
      [b.deckId, 60, 100_000n, 10_000n, 100_000n],
      [b.deckId, 0, 0n, 10_000n, 100_000n],
    ]);
    // The buy side: 4000 * 62 / 60 = 4133.33 -> 4133, from the supplier's deck in force then.
    expect(calls[0]).toMatchObject({
      buyCostMicros: 4_133n,
      buyRateDeckId: expect.any(Number),
      buyConnectFeeMicros: null,
    });
    expect(await balance(group.id)).toBe(10_000_000n - 230_667n);
    expect(await ledgerSum(group.id)).toBe(10_000_000n - 230_667n);
    // Call detail shows each part of the price, from the stored rate and fees.
    const viewer = {
      keyId: "key_test",
      scopes: new Set<Scope>(["calls:read"]),
      billingGroupId: group.id,
      rateCardVersion: 0,
      via: "api_key" as const,
    };
    expect(
      calls
        .map((c) => serializeCallDetail(c, viewer))
        .map((d) => [d.price, d.connectFee, d.minCharge, d.usageCharge, d.minChargeApplied]),
    ).toEqual([
      [0.020667, null, null, 0.020667, false],
      [0.11, 0.01, 0.1, 0.1, false],
      [0.1, 0.01, 0.1, 0.05, true],
      [0, 0.01, 0.1, 0, false],
    ]);
    // Stored as answered: the same rows read back.
    const stored = await one<{ deck: string; fee: string }>(
      sql`SELECT rate_deck_id::text AS deck, connect_fee_micros::text AS fee FROM calls WHERE id = ${calls[1].id.toString()}::bigint`,
    );
    expect(stored).toEqual({ deck: String(b.deckId), fee: "10000" });
  });

  it("keeps a future deck out of today's lookups, and refuses a second deck at the same instant", async () => {
    const group = await createBillingGroup(handle().db, { name: "Future", currency: "USD" });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n"));
    const inAnHour = new Date(Date.now() + 3_600_000);
    const future = await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment\n44,0.03,1/1\n"),
      undefined,
      { effectiveFrom: inAnHour },
    );
    expect((await findSellRate(handle().db, group.id, "4412"))?.rateMicros).toBe(20_000n);
    expect((await getRateCard(handle().db, "sell", group.id, null, inAnHour.getTime()))?.deckId).toBe(future.deckId);
    expect((await getRateCard(handle().db, "sell", group.id, null, inAnHour.getTime() - 1))?.deckId).not.toBe(
      future.deckId,
    );

    const v = await version(group.id);
    await expect(
      importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.04,1/1\n"), undefined, {
        effectiveFrom: inAnHour,
      }),
    ).rejects.toBeInstanceOf(RateDeckExistsError);
    expect(await version(group.id)).toBe(v);
    expect(await deckCount(group.id)).toBe(2);
  });

  it("dry run: diffs against the card in force and warns where a sell rate falls below a buy rate; writes nothing", async () => {
    const group = await createBillingGroup(handle().db, { name: "Diff", currency: "USD" });
    await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment,description\n44,0.02,1/1,\n33,0.05,30/6,\n49,0.01,60/60,Germany\n"),
    );
    const supplier = await createSupplier(handle().db, { name: "Pricey" });
    await importBuyRates(
      handle().db,
      supplier.id,
      parseRateCsv("prefix,rate,increment\n4,0.001,1/1\n44,0.015,1/1\n447,0.03,1/1\n"),
    );
    const v = await version(group.id);

    const rows = parseRateCsv(
      "prefix,rate,increment,connectFee\n44,0.01,1/1,\n33,0.05,30/6,\n447,0.02,1/1,\n1,0.01,1/1,0.05\n",
    );
    const diff = await diffDeck(handle().db, "sell", group.id, rows, new Date("2030-01-01T00:00:00Z"));
    const none = { connectFee: null, minCharge: null, description: null };
    expect(diff).toMatchObject({
      effectiveFrom: "2030-01-01T00:00:00.000Z",
      comparedWith: { effectiveFrom: "1970-01-01T00:00:00.000Z" },
      prefixes: 4,
      added: [
        { prefix: "1", rate: "0.01", increment: "1/1", connectFee: "0.05", minCharge: null, description: null },
        { prefix: "447", rate: "0.02", increment: "1/1", ...none },
      ],
      removed: [
        { prefix: "49", rate: "0.01", increment: "60/60", connectFee: null, minCharge: null, description: "Germany" },
      ],
      changed: [
        {
          prefix: "44",
          old: { rate: "0.02", increment: "1/1", ...none },
          new: { rate: "0.01", increment: "1/1", ...none },
        },
      ],
      unchanged: 1,
    });
    // Other tests' suppliers share this database: look at this one's warnings.
    expect(diff.marginWarnings.filter((w) => w.supplierId === supplier.id)).toEqual([
      {
        prefix: "44",
        billingGroupId: group.id,
        sellRate: "0.01",
        supplierId: supplier.id,
        buyPrefix: "44",
        buyRate: "0.015",
        marginPercent: "-50.00",
        reason: "below_cost",
      },
      {
        prefix: "447",
        billingGroupId: group.id,
        sellRate: "0.02",
        supplierId: supplier.id,
        buyPrefix: "447",
        buyRate: "0.03",
        marginPercent: "-50.00",
        reason: "below_cost",
      },
    ]);
    expect(await version(group.id)).toBe(v);
    expect(await deckCount(group.id)).toBe(1);

    // A buy deck's dry run warns about every group's sell rates it would undercut.
    const buyDiff = await diffDeck(
      handle().db,
      "buy",
      supplier.id,
      parseRateCsv("prefix,rate,increment\n44,0.025,1/1\n"),
    );
    expect(buyDiff.marginWarnings.filter((w) => w.billingGroupId === group.id)).toEqual([
      {
        prefix: "44",
        billingGroupId: group.id,
        sellRate: "0.02",
        supplierId: supplier.id,
        buyPrefix: "44",
        buyRate: "0.025",
        marginPercent: "-25.00",
        reason: "below_cost",
      },
    ]);
    // Under an asked minimum margin (here 30 %), a rate above cost is flagged too.
    const thin = await diffDeck(
      handle().db,
      "buy",
      supplier.id,
      parseRateCsv("prefix,rate,increment\n44,0.015,1/1\n"),
      undefined,
      { minMarginBps: 3000 },
    );
    expect(thin.marginWarnings.filter((w) => w.billingGroupId === group.id)).toEqual([
      expect.objectContaining({ prefix: "44", buyRate: "0.015", marginPercent: "25.00", reason: "low_margin" }),
    ]);
    expect(buyDiff.changed.map((c) => c.prefix)).toEqual(["44"]);
    expect(buyDiff.removed.map((c) => c.prefix)).toEqual(["4", "447"]);
  });

  it("dry run: the warnings on the rates a deck adds or changes come before those on rates it leaves as they were", async () => {
    const group = await createBillingGroup(handle().db, { name: "Order", currency: "USD" });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n81,0.01,1/1\n82,0.01,1/1\n"));
    const supplier = await createSupplier(handle().db, { name: "Near cost" });
    await importBuyRates(handle().db, supplier.id, parseRateCsv("prefix,rate,increment\n81,0.009,1/1\n82,0.009,1/1\n"));
    const rows = parseRateCsv("prefix,rate,increment\n81,0.01,1/1\n82,0.011,1/1\n");
    const diff = await diffDeck(handle().db, "sell", group.id, rows, new Date("2030-01-01T00:00:00Z"), {
      minMarginBps: 5000,
    });
    expect(diff.changed.map((c) => c.prefix)).toEqual(["82"]);
    // 82 changed, 81 did not: 82's warning first although the card lists 81 first.
    expect(diff.marginWarnings.filter((w) => w.supplierId === supplier.id).map((w) => w.prefix)).toEqual(["82", "81"]);
  });

  it("rerate --since re-rates rated calls with the decks in force at their start, adjusting the balance exactly; default rerate does not", async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Rerate",
      currency: "EUR",
      openingBalanceMicros: 10_000_000n,
    });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n"));
    await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment,connectFee,minCharge\n44,0.05,60/60,0.01,0.1\n"),
      undefined,
      {
        effectiveFrom: new Date("2025-06-01T00:00:00Z"),
      },
    );
    const [c1, c2, c3, c4] = (
      await ingestCdrs(handle().db, [
        cdr({
          billingGroupId: group.id,
          startTime: "2025-05-31T23:59:59.999Z",
          answerTime: "2025-06-01T00:00:04.999Z",
          endTime: "2025-06-01T00:01:06.249Z",
        }),
        cdr({
          billingGroupId: group.id,
          startTime: "2025-06-01T00:00:00Z",
          answerTime: "2025-06-01T00:00:05Z",
          endTime: "2025-06-01T00:01:06.250Z",
        }),
        cdr({
          billingGroupId: group.id,
          startTime: "2025-06-02T00:00:00Z",
          answerTime: "2025-06-02T00:00:01Z",
          endTime: "2025-06-02T00:00:04Z",
        }),
        cdr({
          billingGroupId: group.id,
          startTime: "2025-06-02T01:00:00Z",
          answerTime: null,
          endTime: "2025-06-02T01:00:30Z",
        }),
      ])
    ).map((o) => o.call);
    expect(await balance(group.id)).toBe(10_000_000n - 230_667n);

    // A backdated deck from 2025-06-01 12:00: 0.03/min on 1/1, no fees.
    const c = await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment\n44,0.03,1/1\n"),
      undefined,
      {
        effectiveFrom: new Date("2025-06-01T12:00:00Z"),
      },
    );
    const price = async (id: bigint) =>
      BigInt(
        (await one<{ p: string }>(sql`SELECT price_micros::text AS p FROM calls WHERE id = ${id.toString()}::bigint`))
          .p,
      );
    // Default rerate: only unrated calls; none here, nothing changes.
    expect(await rerateCalls(handle().db, { billingGroupId: group.id })).toMatchObject({
      examined: 0,
      rated: 0,
      rerated: 0,
    });
    expect(await price(c3.id)).toBe(100_000n);

    const result = await rerateCalls(handle().db, {
      billingGroupId: group.id,
      since: new Date("2025-06-01T00:00:00Z"),
    });
    // c2 started before deck C: unchanged. c3: 3 s at 0.03 on 1/1 = 0.0015 (was the minimum 0.1). c4: unanswered, new deck, 0.
    expect(result).toMatchObject({
      examined: 3,
      rated: 0,
      rerated: 2,
      adjustedMicros: 1_500n - 100_000n,
      unmatched: 0,
    });
    expect([await price(c1.id), await price(c2.id), await price(c3.id), await price(c4.id)]).toEqual([
      20_667n,
      110_000n,
      1_500n,
      0n,
    ]);
    const after = 10_000_000n - (20_667n + 110_000n + 1_500n);
    expect(await balance(group.id)).toBe(after);
    expect(await ledgerSum(group.id)).toBe(after);
    const adjustments = await queryRows<{ call_id: string; amount: string }>(
      handle().db,
      sql`SELECT call_id::text, amount_micros::text AS amount FROM ledger_entries WHERE billing_group_id = ${group.id} AND kind = 'adjustment'`,
    );
    expect(adjustments).toEqual([{ call_id: c3.id.toString(), amount: "98500" }]);
    const rerated = await one<{ deck: string }>(
      sql`SELECT rate_deck_id::text AS deck FROM calls WHERE id = ${c4.id.toString()}::bigint`,
    );
    expect(rerated.deck).toBe(String(c.deckId));

    // The usage rollups moved with the update: their totals still equal the sums over the calls.
    const fromCalls = await one<{ p: string; s: string; n: string }>(
      sql`SELECT SUM(price_micros)::text AS p, SUM(bill_duration)::text AS s, count(*)::text AS n FROM calls WHERE billing_group_id = ${group.id}`,
    );
    for (const table of ["usage_hourly", "usage_daily", "usage_quarter"]) {
      const rolled = await one<{ p: string; s: string; n: string }>(
        sql`SELECT SUM(price_micros)::text AS p, SUM(billed_seconds)::text AS s, SUM(calls)::text AS n FROM ${sql.raw(table)} WHERE billing_group_id = ${group.id}`,
      );
      expect(rolled, table).toEqual(fromCalls);
    }
    expect(fromCalls.p).toBe("132167");

    // Two runs at once after another backdated deck: each call is adjusted exactly once.
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.06,1/1\n"), undefined, {
      effectiveFrom: new Date("2025-06-01T18:00:00Z"),
    });
    const [r1, r2] = await Promise.all([
      rerateCalls(handle().db, { billingGroupId: group.id, since: new Date("2025-06-01T00:00:00Z"), batchSize: 1 }),
      rerateCalls(handle().db, { billingGroupId: group.id, since: new Date("2025-06-01T00:00:00Z"), batchSize: 1 }),
    ]);
    // c3: 3 s at 0.06 = 0.003 (was 0.0015); c4 moves to the new deck at 0.
    expect(r1.rerated + r2.rerated).toBe(2);
    expect(r1.adjustedMicros + r2.adjustedMicros).toBe(1_500n);
    expect(await price(c3.id)).toBe(3_000n);
    expect(await balance(group.id)).toBe(after - 1_500n);
    expect(await ledgerSum(group.id)).toBe(after - 1_500n);
    const rolled = await one<{ p: string }>(
      sql`SELECT SUM(price_micros)::text AS p FROM usage_daily WHERE billing_group_id = ${group.id}`,
    );
    expect(BigInt(rolled.p)).toBe(20_667n + 110_000n + 3_000n);

    // Once is enough: a second run finds nothing to change.
    expect(
      await rerateCalls(handle().db, { billingGroupId: group.id, since: new Date("2025-06-01T00:00:00Z") }),
    ).toMatchObject({ rerated: 0, adjustedMicros: 0n });
    expect(await balance(group.id)).toBe(after - 1_500n);
  });

  it("leaves a call unrated when its group's only deck starts after the call", async () => {
    const group = await createBillingGroup(handle().db, { name: "Late start", currency: "USD" });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n"), undefined, {
      effectiveFrom: new Date("2025-07-01T00:00:00Z"),
    });
    const [o] = await ingestCdrs(handle().db, [
      cdr({
        billingGroupId: group.id,
        startTime: "2025-06-30T23:59:59Z",
        answerTime: "2025-06-30T23:59:59Z",
        endTime: "2025-07-01T00:00:09Z",
      }),
    ]);
    expect(o.call).toMatchObject({ rated: false, priceMicros: 0n, rateDeckId: null });
  });
});
