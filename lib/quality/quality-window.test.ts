import { describe, expect, it } from "vitest";
import { crossingsOf, judgeWindow, qualityMetrics, type QualityLimits, type WindowCounts } from "./quality-window";
import { qualityThresholdsBodySchema, windowMinutesOf } from "./schemas";

const counts = (c: Partial<WindowCounts>): WindowCounts => ({
  attempts: 0,
  answered: 0,
  answeredMs: 0,
  pddCalls: 0,
  pddMsSum: 0,
  ...c,
});
const LIMITS: QualityLimits = { minCalls: 4, asrMinBp: 5_000, acdMinSeconds: 30, pddMaxMs: 3_000 };
const ARMED = { asr: false, acd: false, pdd: false };

describe("quality window arithmetic", () => {
  it("gives no metric (null, not 0) where there is nothing to average", () => {
    expect(qualityMetrics(counts({}))).toEqual({ asr: null, acd: null, pdd: null });
    expect(qualityMetrics(counts({ attempts: 3 }))).toEqual({ asr: 0, acd: null, pdd: null });
    expect(
      qualityMetrics(counts({ attempts: 3, answered: 2, answeredMs: 91_000, pddCalls: 2, pddMsSum: 2_501 })),
    ).toEqual({ asr: 66.67, acd: 45.5, pdd: 1251 });
  });

  it("judges a metric only with minCalls samples of its own, and exactly at the limit as within it", () => {
    // 3 attempts < minCalls 4: nothing judged, whatever the ratio.
    expect(judgeWindow(LIMITS, counts({ attempts: 3 }))).toEqual({ asr: null, acd: null, pdd: null });
    // ASR exactly 50.00 % is not below 50 %; ACD exactly 30 s is not below 30 s; PDD exactly 3 s is not above.
    const atLimits = counts({ attempts: 8, answered: 4, answeredMs: 120_000, pddCalls: 4, pddMsSum: 12_000 });
    expect(judgeWindow(LIMITS, atLimits)).toEqual({ asr: false, acd: false, pdd: false });
    const past = counts({ attempts: 9, answered: 4, answeredMs: 119_999, pddCalls: 4, pddMsSum: 12_001 });
    expect(judgeWindow(LIMITS, past)).toEqual({ asr: true, acd: true, pdd: true });
    // ACD needs 4 answered calls, PDD 4 calls with a delay: 10 attempts are not enough for them.
    expect(
      judgeWindow(LIMITS, counts({ attempts: 10, answered: 3, answeredMs: 3_000, pddCalls: 1, pddMsSum: 9e6 })),
    ).toEqual({ asr: true, acd: null, pdd: null });
    // A metric without a limit is not watched.
    expect(judgeWindow({ ...LIMITS, asrMinBp: null }, past).asr).toBeNull();
  });

  it("fires a crossing once, keeps quiet while it lasts or without calls, and re-arms after a recovery", () => {
    const low = judgeWindow(LIMITS, counts({ attempts: 10, answered: 1 }));
    expect(crossingsOf(ARMED, low)).toEqual([{ metric: "asr", past: true }]);
    const crossed = { ...ARMED, asr: true };
    expect(crossingsOf(crossed, low)).toEqual([]);
    expect(crossingsOf(crossed, judgeWindow(LIMITS, counts({})))).toEqual([]);
    const recovered = judgeWindow({ ...LIMITS, acdMinSeconds: null }, counts({ attempts: 10, answered: 6 }));
    expect(crossingsOf(crossed, recovered)).toEqual([{ metric: "asr", past: false }]);
    expect(crossingsOf(ARMED, recovered)).toEqual([]);
    expect(crossingsOf(ARMED, low)).toEqual([{ metric: "asr", past: true }]);
  });

  it("reads windows of minutes and hours up to a day, and takes ASR limits to the hundredth", () => {
    expect([windowMinutesOf("15m"), windowMinutesOf("1h"), windowMinutesOf("24h")]).toEqual([15, 60, 1440]);
    for (const bad of ["0m", "25h", "1441m", "15", "m", "1.5h", "-5m"]) expect(windowMinutesOf(bad), bad).toBeNull();
    const parse = (asrMin: number) => qualityThresholdsBodySchema.safeParse({ thresholds: [{ asrMin }] }).success;
    expect([parse(40.1), parse(33.33), parse(100), parse(40.123), parse(101)]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    const twice = qualityThresholdsBodySchema.safeParse({ thresholds: [{ prefix: "+44" }, { prefix: "44" }] });
    expect(twice.success).toBe(false);
  });
});
