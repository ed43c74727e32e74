import { describe, expect, it } from "vitest";
import { hasLiveCaps, liveState } from "./live-state";
import type { Limits } from "./schemas";

const open = {
  maxConcurrentCalls: null,
  callsPerSecond: null,
  dailySpend: null,
  monthlySpend: null,
  blockedPrefixes: [],
  allowedPrefixes: null,
  distinctDestinations: null,
  callsPerPrefix: null,
  disableOnFraud: false,
};

const limits = (
  operator: Partial<Limits["operator"]>,
  customer: Partial<Limits["customer"]>,
  providers: Partial<Limits["operator"]>[] = [],
): Limits => ({
  billingGroupId: "bg_1",
  currency: "USD",
  timeZone: "Europe/London",
  operator: { ...open, ...operator },
  provider: providers.length === 0 ? null : { ...open, ...providers[0] },
  providers: providers.map((p, i) => ({ ...open, ...p, depth: i + 1 })),
  customer: { ...open, ...customer },
  usage: { concurrentCalls: 3, openReservations: 0.1, settledToday: 0.2, settledThisMonth: 12.345678 },
});

describe("liveState", () => {
  it("binds each figure to the tighter layer's cap, whichever layer set it", () => {
    const state = liveState(limits({ maxConcurrentCalls: 30, dailySpend: 50 }, { maxConcurrentCalls: 10 }));
    expect(state.concurrentCalls).toEqual({ now: 3, cap: 10 });
    expect(state.today.capMicros).toBe(50_000_000n);
    expect(state.month.capMicros).toBeNull();
    expect(liveState(limits({}, { monthlySpend: 100 })).month.capMicros).toBe(100_000_000n);
    // A reseller further up binds as well as the parent: every provider's layer counts.
    const tiers = liveState(
      limits({ maxConcurrentCalls: 30 }, {}, [{ maxConcurrentCalls: 20 }, { maxConcurrentCalls: 8 }]),
    );
    expect(tiers.concurrentCalls.cap).toBe(8);
  });

  it("counts open reservations in today's and the month's spend, exactly (no float sum)", () => {
    const state = liveState(limits({}, {}));
    expect(state.today.spentMicros).toBe(300_000n);
    expect(state.month.spentMicros).toBe(12_445_678n);
  });

  it("has live caps only with a concurrent-call or daily cap", () => {
    expect(hasLiveCaps(liveState(limits({}, { monthlySpend: 10 })))).toBe(false);
    expect(hasLiveCaps(liveState(limits({}, { maxConcurrentCalls: 2 })))).toBe(true);
    expect(hasLiveCaps(liveState(limits({ dailySpend: 5 }, {})))).toBe(true);
  });
});
