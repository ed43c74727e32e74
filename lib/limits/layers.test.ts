import { describe, expect, it } from "vitest";
import {
  checkDestination,
  effectiveLimits,
  loosenings,
  looseningsUnder,
  needsWindow,
  NO_LIMITS,
  parseStoredLayer,
  storedLayer,
  storedLayerOf,
  type LimitLayer,
} from "./layers";

const layer = (over: Partial<LimitLayer>): LimitLayer => ({ ...NO_LIMITS, ...over });

describe("limit layers", () => {
  it("adds up the two layers: the lower number, both block lists, each allow list, each layer's windows", () => {
    const operator = layer({
      maxConcurrentCalls: 30,
      dailySpendMicros: 50_000_000n,
      blockedPrefixes: ["4490"],
      allowedPrefixes: ["44", "33"],
      callsPerPrefix: { max: 10, windowSeconds: 60 },
    });
    const customer = layer({
      maxConcurrentCalls: 5,
      monthlySpendMicros: 900_000_000n,
      blockedPrefixes: ["33"],
      allowedPrefixes: ["4420"],
      callsPerPrefix: { max: 3, windowSeconds: 600 },
    });
    // Each provider's (a reseller's) layer holds beside both: one's lower daily spend and blocked prefix, the other's
    // allow list and window.
    const providers = [
      layer({ dailySpendMicros: 20_000_000n, blockedPrefixes: ["4491"] }),
      layer({ dailySpendMicros: 30_000_000n, allowedPrefixes: ["4"], callsPerPrefix: { max: 5, windowSeconds: 60 } }),
    ];
    const both = effectiveLimits({ operator, providers, customer });
    expect(both).toMatchObject({ dailySpendMicros: 20_000_000n, allowLists: [["44", "33"], ["4"], ["4420"]] });
    expect(both.blockedPrefixes.sort()).toEqual(["33", "4490", "4491"]);
    // Windows in authorize_state's order: the operator's, the providers' in turn, the customer's.
    expect(both.callsPerPrefix.map((w) => w.max)).toEqual([10, 5, 3]);
    const limits = effectiveLimits({ operator, providers: [], customer });
    expect(limits).toMatchObject({
      maxConcurrentCalls: 5,
      callsPerSecond: null,
      dailySpendMicros: 50_000_000n,
      monthlySpendMicros: 900_000_000n,
      allowLists: [["44", "33"], ["4420"]],
    });
    expect(limits.blockedPrefixes.sort()).toEqual(["33", "4490"]);
    expect(limits.callsPerPrefix).toHaveLength(2);
    expect(needsWindow(limits)).toBe(true);
    expect(
      needsWindow(effectiveLimits({ operator: layer({ maxConcurrentCalls: 1 }), providers: [], customer: NO_LIMITS })),
    ).toBe(false);

    expect(checkDestination(limits, "44201234")).toEqual({ ok: true });
    // The longest blocked prefix is named; an allow list missed is named whole.
    expect(
      checkDestination(
        effectiveLimits({
          operator: layer({ blockedPrefixes: ["44", "4490"] }),
          providers: [],
          customer: NO_LIMITS,
        }),
        "449012",
      ),
    ).toEqual({
      ok: false,
      code: "destination_blocked",
      limit: "blockedPrefixes",
      value: "4490",
    });
    expect(checkDestination(limits, "4479")).toEqual({
      ok: false,
      code: "destination_not_allowed",
      limit: "allowedPrefixes",
      value: "4420",
    });
    expect(checkDestination(limits, "3312")).toMatchObject({ code: "destination_blocked", value: "33" });
  });

  it("names each customer number above the operator's, and nothing for rules the operator left open", () => {
    const operator = layer({ maxConcurrentCalls: 10, dailySpendMicros: 5_000_000n, distinctDestinations: null });
    expect(
      loosenings(
        operator,
        layer({
          maxConcurrentCalls: 11,
          dailySpendMicros: 5_000_001n,
          distinctDestinations: { max: 99, windowSeconds: 1 },
        }),
      ),
    ).toEqual([
      { param: "maxConcurrentCalls", message: "must not exceed the operator's limit (10)" },
      { param: "dailySpend", message: "must not exceed the operator's limit (5)" },
    ]);
    expect(loosenings(operator, layer({ maxConcurrentCalls: 10, callsPerSecond: 1000 }))).toEqual([]);
  });

  it("stores money as exact micro-units and reads the column's default as no limits", () => {
    const l = layer({ monthlySpendMicros: 123_456_789_012_345_678n, allowedPrefixes: ["1"] });
    expect(parseStoredLayer(JSON.stringify(storedLayer(l)))).toEqual(l);
    expect(parseStoredLayer("{}")).toEqual(NO_LIMITS);
    expect(parseStoredLayer(null)).toEqual(NO_LIMITS);
    // The parsed JSON value reads the same (authorize_state's answer is parsed once).
    expect(storedLayerOf(JSON.parse(JSON.stringify(storedLayer(l))))).toEqual(l);
    expect(storedLayerOf(undefined)).toEqual(NO_LIMITS);
  });

  it("names, per rule, the tightest number of the layers over a writer: one error each", () => {
    const providers = [
      layer({ maxConcurrentCalls: 5, dailySpendMicros: 9_000_000n, callsPerPrefix: { max: 30, windowSeconds: 60 } }),
      layer({ maxConcurrentCalls: 3, callsPerPrefix: { max: 20, windowSeconds: 3600 } }),
    ];
    const wanted = layer({
      maxConcurrentCalls: 4,
      dailySpendMicros: 10_000_000n,
      callsPerPrefix: { max: 25, windowSeconds: 60 },
    });
    expect(looseningsUnder(layer({ maxConcurrentCalls: 10 }), providers, wanted)).toEqual([
      { param: "maxConcurrentCalls", message: "must not exceed the provider's limit (3)" },
      { param: "dailySpend", message: "must not exceed the provider's limit (9)" },
      { param: "callsPerPrefix.max", message: "must not exceed the provider's limit (20)" },
    ]);
    expect(looseningsUnder(NO_LIMITS, providers, layer({ maxConcurrentCalls: 3 }))).toEqual([]);
  });
});
