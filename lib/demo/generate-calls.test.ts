import { describe, expect, it } from "vitest";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { rateRowSchema } from "@/lib/rating/schemas";
import { buildDestinations } from "./destinations";
import { DEMO_GROUPS, DEMO_SUPPLIERS, generateCalls } from "./generate-calls";
import { buyCard, sellCard } from "./run-demo";

const destinations = buildDestinations();
const now = new Date("2026-03-15T12:00:00Z");

describe("demo destinations", () => {
  it("are thousands of distinct digit prefixes with real country and mobile ranges", () => {
    const prefixes = destinations.map((d) => d.prefix);
    expect(prefixes.length).toBeGreaterThan(3000);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(prefixes.every((p) => /^\d{1,20}$/.test(p))).toBe(true);
    for (const p of ["1", "1212", "44", "4420", "44771", "49", "491515", "33", "91"]) expect(prefixes).toContain(p);
  });

  it("give rate cards that parse, with buy rates mostly below sell and a few above", () => {
    const sell = new Map(sellCard(DEMO_GROUPS[0], destinations).map((r) => [r.prefix, Number(r.rate)]));
    const buy = buyCard(DEMO_SUPPLIERS[0], destinations);
    for (const row of [...sellCard(DEMO_GROUPS[2], destinations), ...buy]) rateRowSchema.shape.rate.parse(row.rate);
    const above = buy.filter((r) => Number(r.rate) > (sell.get(r.prefix) ?? 0)).length;
    expect(above).toBeGreaterThan(0);
    expect(above / buy.length).toBeLessThan(0.1);
    expect([...sell.values()].every((r) => r > 0)).toBe(true);
  });
});

describe("demo calls", () => {
  const take = (seed: number, n: number) => [...generateCalls(n, destinations, { seed, now })];

  it("are the same for the same seed and differ for another", () => {
    const a = take(7, 200).map((c) => c.cdr);
    expect(take(7, 200).map((c) => c.cdr)).toEqual(a);
    expect(take(8, 200).map((c) => c.cdr.uuid)).not.toEqual(a.map((c) => c.uuid));
  });

  it("look like 90 days of real traffic", () => {
    const calls = take(42, 4000);
    const cdrs = calls.map((c) => nativeCdrSchema.parse(c.cdr));
    const count = <K extends string>(key: (c: (typeof cdrs)[number]) => K | null) => {
      const m = new Map<K | null, number>();
      for (const c of cdrs) m.set(key(c), (m.get(key(c)) ?? 0) + 1);
      return m;
    };
    expect(new Set(cdrs.map((c) => c.uuid)).size).toBe(cdrs.length);
    const oldest = now.getTime() - 91 * 86_400_000;
    expect(cdrs.every((c) => Date.parse(c.startTime) >= oldest && Date.parse(c.endTime) <= now.getTime())).toBe(true);

    const causes = count((c) => c.hangupCause);
    expect(causes.size).toBeGreaterThanOrEqual(6);
    expect(Math.max(...causes.values())).toBe(causes.get("NORMAL_CLEARING"));
    expect(
      cdrs.filter((c) => c.hangupCause === "NORMAL_CLEARING").every((c) => c.answerTime !== null && c.q850Cause === 16),
    ).toBe(true);
    expect(cdrs.filter((c) => c.answerTime === null).length).toBeGreaterThan(400);

    expect(count((c) => c.direction).size).toBe(2);
    expect([...count((c) => c.readCodec).keys()].filter(Boolean).sort()).toEqual(["G729", "OPUS", "PCMA", "PCMU"]);
    expect(cdrs.some((c) => c.recordingUrl !== null)).toBe(true);
    expect(cdrs.every((c) => c.answerTime === null || c.pdd !== null)).toBe(true);
    // a few destinations no card rates (stored unrated)
    const unrated = calls.filter((c) => c.destination === null).length;
    expect(unrated).toBeGreaterThan(10);
    expect(unrated / calls.length).toBeLessThan(0.05);
    // every demo customer gets traffic, in both currencies
    expect(new Set(calls.map((c) => c.group.key)).size).toBe(DEMO_GROUPS.length);
  });
});
