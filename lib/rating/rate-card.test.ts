import { describe, expect, it } from "vitest";
import { RateCardBuilder } from "./rate-card";

describe("RateCardBuilder", () => {
  it("builds a card from database records: fees, descriptions, increments, exact micros", () => {
    const b = new RateCardBuilder(5);
    const last = b.addRecords(
      [
        "44,12000,60,60,,",
        "4420,15000,1,1,10000,",
        "447,0,30,6,,50000",
        "1,9223372036854775807,1,1,9007199254740993,-5",
      ].join("\n"),
      ["UK", null, "UK mobile", null],
    );
    expect(last).toBe("1");
    expect(b.addRecords("33,250,60,60,,", null)).toBe("33");
    const card = b.build();
    expect(card.size).toBe(5);
    expect(card.match("+442071234567")).toEqual({
      prefix: "4420",
      rateMicros: 15_000n,
      increment: { min: 1, interval: 1 },
      description: null,
      connectFeeMicros: 10_000n,
      minChargeMicros: null,
    });
    expect(card.match("4412")).toEqual({
      prefix: "44",
      rateMicros: 12_000n,
      increment: { min: 60, interval: 60 },
      description: "UK",
      connectFeeMicros: null,
      minChargeMicros: null,
    });
    expect(card.match("4479")).toMatchObject({
      prefix: "447",
      rateMicros: 0n,
      increment: { min: 30, interval: 6 },
      description: "UK mobile",
      minChargeMicros: 50_000n,
    });
    // int8 extremes stay exact (beyond 2^53 they are kept aside, not rounded).
    expect(card.match("1555")).toMatchObject({
      rateMicros: 9_223_372_036_854_775_807n,
      connectFeeMicros: 9_007_199_254_740_993n,
      minChargeMicros: -5n,
    });
    expect(card.match("33")).toMatchObject({ rateMicros: 250n, description: null, connectFeeMicros: null });
    expect(card.match("49")).toBeNull();
    expect([...card.entries()].map((e) => `${e.prefix}:${e.rateMicros}:${e.description}`)).toEqual([
      "44:12000:UK",
      "4420:15000:null",
      "447:0:UK mobile",
      "1:9223372036854775807:null",
      "33:250:null",
    ]);
  });

  it("gives equal increments one object", () => {
    const b = new RateCardBuilder(3);
    b.add("1", 1n, 60, 60, null, null, null);
    b.add("2", 2n, 60, 60, null, null, null);
    b.add("3", 3n, 1, 60, null, null, null);
    const card = b.build();
    expect(card.match("1")!.increment).toBe(card.match("2")!.increment);
    expect(card.match("3")!.increment).toEqual({ min: 1, interval: 60 });
  });

  it("keeps more than 255 distinct descriptions apart", () => {
    const b = new RateCardBuilder(300);
    for (let i = 0; i < 300; i++) b.add(String(1000 + i), BigInt(i), 1, 1, `d${i}`, null, null);
    const card = b.build();
    expect(card.match("1000")!.description).toBe("d0");
    expect(card.match("1299")!.description).toBe("d299");
    expect(card.match("1256")!.description).toBe("d256");
  });

  it("refuses malformed records, a count of descriptions that does not match, duplicates and overflow", () => {
    expect(() => new RateCardBuilder(2).addRecords("44,12a,60,60,,", null)).toThrow(RangeError);
    expect(() => new RateCardBuilder(2).addRecords("44,12,60", null)).toThrow(RangeError);
    expect(() => new RateCardBuilder(2).addRecords("4x,12,60,60,,", null)).toThrow(/digits/);
    expect(() => new RateCardBuilder(2).addRecords("44,12,60,60,,", ["a", "b"])).toThrow(/descriptions/);
    expect(() => new RateCardBuilder(2).addRecords("44,12,60,60,,\n44,13,60,60,,", null)).toThrow(/duplicate/);
    expect(() => new RateCardBuilder(1).addRecords("44,12,60,60,,\n45,13,60,60,,", null)).toThrow(/sized for/);
    expect(new RateCardBuilder(1).addRecords("", null)).toBeNull();
  });
});
