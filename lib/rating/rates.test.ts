import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { cardLoading, clearRateCardCache, findBuyRate, findSellRate, getDeckIndex, getRateCard } from "./find-rate";
import { importBuyRates, importSellRates, RateCardOwnerNotFoundError } from "./import-rates";
import { parseRateCsv, RateCsvError } from "./rate-csv";
import { createSupplier } from "./suppliers";

describe("parseRateCsv", () => {
  it("reads the standard column order (fast path) exactly as any other order", () => {
    const row = fc.record({
      prefix: fc.stringMatching(/^\d{1,20}$/),
      rate: fc.stringMatching(/^\d{1,4}(\.\d{1,6})?$/),
      min: fc.integer({ min: 0, max: 999 }),
      interval: fc.integer({ min: 1, max: 999 }),
      description: fc.option(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,30}$/), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(row, { selector: (r) => r.prefix, maxLength: 20 }), (rows) => {
        const standard = [
          "prefix,rate,increment,description",
          ...rows.map((r) => `${r.prefix},${r.rate},${r.min}/${r.interval},${r.description ?? ""}`),
        ];
        const reordered = [
          "description,increment,rate,prefix",
          ...rows.map((r) => `${r.description ?? ""},${r.min}/${r.interval},${r.rate},${r.prefix}`),
        ];
        expect(parseRateCsv(standard.join("\n"))).toEqual(parseRateCsv(reordered.join("\n")));
      }),
    );
  });

  it("reads a deck with a header, quotes and optional descriptions", () => {
    const rows = parseRateCsv(
      'prefix,rate,increment,description\n4420,0.0120,60/60,"London, UK"\n\n44,0.02,1/1,\r\n1,0.005,30/6\n',
    );
    expect(rows).toEqual([
      { prefix: "4420", rate: "0.0120", increment: { min: 60, interval: 60 }, description: "London, UK" },
      { prefix: "44", rate: "0.02", increment: { min: 1, interval: 1 } },
      { prefix: "1", rate: "0.005", increment: { min: 30, interval: 6 } },
    ]);
  });

  it("matches columns by header name", () => {
    expect(parseRateCsv("increment,prefix,rate\n60/60,33,0.1")).toEqual([
      { prefix: "33", rate: "0.1", increment: { min: 60, interval: 60 } },
    ]);
  });

  it.each([
    ["prefix,rate,increment\n44,0.1,60/60\n44,0.2,1/1", 3, /already on line 2/],
    ["prefix,rate,increment\n44,abc,60/60", 2, /rate/],
    ["prefix,rate,increment\n4x,0.1,60/60", 2, /prefix/],
    ["prefix,rate,increment\n44,0.1,60/0", 3 - 1, /interval/],
    ["prefix,rate,increment\n44,0.1234567,60/60", 2, /6 decimals/],
    ["prefix,rate\n44,0.1", 1, /increment/],
    ["", 1, /empty/],
  ])("refuses a bad deck naming the line (%#)", (text, line, message) => {
    try {
      parseRateCsv(text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RateCsvError);
      expect((e as RateCsvError).line).toBe(line);
      expect((e as Error).message).toMatch(message);
    }
  });
});

describeOnEngines("rate cards", (handle) => {
  it("imports a card, matches the longest prefix and a later deck takes over from its import on", async () => {
    const group = await createBillingGroup(handle().db, { name: "Acme", currency: "USD" });
    const first = await importSellRates(
      handle().db,
      group.id,
      parseRateCsv("prefix,rate,increment,description\n44,0.02,1/1\n4420,0.0120,60/60,London\n"),
    );
    // The first deck of a group takes effect at the epoch: it covers every call.
    expect(first).toEqual({
      ownerId: group.id,
      imported: 2,
      rateCardVersion: 1,
      deckId: expect.any(Number),
      effectiveFrom: new Date(0),
    });
    expect(await findSellRate(handle().db, group.id, "+442071234567")).toEqual({
      prefix: "4420",
      rateMicros: 12_000n,
      increment: { min: 60, interval: 60 },
      description: "London",
      connectFeeMicros: null,
      minChargeMicros: null,
    });
    expect((await findSellRate(handle().db, group.id, "4430"))?.prefix).toBe("44");
    expect(await findSellRate(handle().db, group.id, "33")).toBeNull();

    const before = Date.now();
    const second = await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n33,0.05,30/6\n"));
    expect(second.rateCardVersion).toBe(2);
    // Default effective-from of a later deck: now.
    expect(second.effectiveFrom.getTime()).toBeGreaterThanOrEqual(before);
    expect(second.effectiveFrom.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await findSellRate(handle().db, group.id, "442071234567")).toBeNull();
    expect((await findSellRate(handle().db, group.id, "331"))?.rateMicros).toBe(50_000n);
  });

  it("notices a deck added by another process through the version", async () => {
    const group = await createBillingGroup(handle().db, { name: "Other", currency: "USD" });
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n49,0.01,60/60\n"));
    expect((await findSellRate(handle().db, group.id, "491"))?.rateMicros).toBe(10_000n);
    // As another process would: add a deck in force now and bump the version, without touching this cache.
    const [{ id }] = await queryRows<{ id: string }>(
      handle().db,
      sql`INSERT INTO rate_decks (billing_group_id, effective_from) VALUES (${group.id}, now() - interval '1 second') RETURNING id::text AS id`,
    );
    await handle().db
      .execute(sql`INSERT INTO sell_rates (deck_id, billing_group_id, prefix, rate_micros, increment_min, increment_interval)
                                VALUES (${id}::bigint, ${group.id}, '49', 20000, 60, 60)`);
    await handle().db.execute(
      sql`UPDATE billing_groups SET rate_card_version = rate_card_version + 1 WHERE id = ${group.id}`,
    );
    expect((await findSellRate(handle().db, group.id, "491"))?.rateMicros).toBe(20_000n);
    // A caller holding the version (the API principal) skips the version query and still gets the new deck.
    const [{ v }] = await queryRows<{ v: bigint }>(
      handle().db,
      sql`SELECT rate_card_version AS v FROM billing_groups WHERE id = ${group.id}`,
    );
    expect((await findSellRate(handle().db, group.id, "491", Number(v)))?.rateMicros).toBe(20_000n);
    expect((await getDeckIndex(handle().db, "sell", group.id))?.version).toBe(Number(v));
    expect((await getRateCard(handle().db, "sell", group.id))?.deckId).toBe(Number(id));
  });

  it("loads a deck in chunks: every rate with its fees, increment and description, as imported", async () => {
    const group = await createBillingGroup(handle().db, { name: "Chunked", currency: "USD" });
    const csv = [
      "prefix,rate,increment,description,connectFee,minCharge",
      "1,0.001,1/1,,,",
      "44,0.02,60/60,UK,0.01,",
      '4420,0.012,30/6,"London, UK",,0.05',
      "447,0,1/1,UK mobile,0.000001,0.000002",
      "49,123456.789012,60/60,,,",
      "0049,0.5,60/60,,,",
      "12345678901234567890,0.1,1/1,long,,",
    ].join("\n");
    await importSellRates(handle().db, group.id, parseRateCsv(csv));
    const chunkRows = cardLoading.chunkRows;
    try {
      for (const rows of [2, 3, 7, 1000]) {
        cardLoading.chunkRows = rows;
        clearRateCardCache();
        const card = (await getRateCard(handle().db, "sell", group.id))!;
        expect(card.size).toBe(7);
        const entries = [...card.entries()].sort((a, b) => (a.prefix < b.prefix ? -1 : 1));
        expect(
          entries.map((e) => [
            e.prefix,
            e.rateMicros,
            `${e.increment.min}/${e.increment.interval}`,
            e.description,
            e.connectFeeMicros,
            e.minChargeMicros,
          ]),
        ).toEqual([
          ["0049", 500_000n, "60/60", null, null, null],
          ["1", 1_000n, "1/1", null, null, null],
          ["12345678901234567890", 100_000n, "1/1", "long", null, null],
          ["44", 20_000n, "60/60", "UK", 10_000n, null],
          ["4420", 12_000n, "30/6", "London, UK", null, 50_000n],
          ["447", 0n, "1/1", "UK mobile", 1n, 2n],
          ["49", 123_456_789_012n, "60/60", null, null, null],
        ]);
        expect(card.match("+4420712345")).toMatchObject({
          prefix: "4420",
          description: "London, UK",
          minChargeMicros: 50_000n,
        });
        expect(card.match("0049301")?.prefix).toBe("0049");
        expect(card.match("123456789012345678901")?.prefix).toBe("12345678901234567890");
        expect(card.match("1234567890123456789")?.prefix).toBe("1");
      }
    } finally {
      cardLoading.chunkRows = chunkRows;
    }
  });

  it("keeps supplier buy cards apart and refuses unknown owners", async () => {
    const supplier = await createSupplier(handle().db, { name: "Carrier", gatewayName: "gw-carrier" });
    expect(supplier.gatewayName).toBe("gw-carrier");
    await importBuyRates(handle().db, supplier.id, parseRateCsv("prefix,rate,increment\n44,0.004,1/1\n"));
    expect((await findBuyRate(handle().db, supplier.id, "44123"))?.rateMicros).toBe(4_000n);
    expect(await findBuyRate(handle().db, "sup_unknown", "44123")).toBeNull();
    await expect(importSellRates(handle().db, "bg_unknown", [])).rejects.toBeInstanceOf(RateCardOwnerNotFoundError);
  });
});
