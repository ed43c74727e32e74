// Window arithmetic of call quality (docs/contract.md "Quality windows and alerts"): what a sliding window of calls
// counted, the metrics it gives, and whether each metric is past its threshold. Comparisons are in integers (ASR in
// basis points against answered x 10 000, ACD and PDD against their sums), so a value exactly at a threshold is never
// misjudged by a float; the metrics shown are rounded at the edge.

/** What a window counted over a set of calls. */
export interface WindowCounts {
  /** Calls that started in the window (attempts). */
  attempts: number;
  /** Of those, calls that were answered. */
  answered: number;
  /** Time answered (answerTime to endTime) of the answered calls, milliseconds: not rounded by any rate's increment. */
  answeredMs: number;
  /** Calls that carried a post-dial delay. */
  pddCalls: number;
  /** The sum of their post-dial delays, milliseconds. */
  pddMsSum: number;
}

export interface QualityMetrics {
  /** Answer-seizure ratio, percent (2 decimals); null without attempts. */
  asr: number | null;
  /** Average time answered of answered calls, seconds (1 decimal); null without answered calls. */
  acd: number | null;
  /** Average post-dial delay, milliseconds (whole); null without a call that carried one. */
  pdd: number | null;
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

export function qualityMetrics(c: WindowCounts): QualityMetrics {
  return {
    asr: c.attempts === 0 ? null : round((c.answered / c.attempts) * 100, 2),
    acd: c.answered === 0 ? null : round(c.answeredMs / c.answered / 1000, 1),
    pdd: c.pddCalls === 0 ? null : Math.round(c.pddMsSum / c.pddCalls),
  };
}

export const QUALITY_METRICS = ["asr", "acd", "pdd"] as const;
export type QualityMetric = (typeof QUALITY_METRICS)[number];

/** A threshold's limits (null: that metric is not watched) and the calls a metric needs before it is judged. */
export interface QualityLimits {
  minCalls: number;
  asrMinBp: number | null;
  acdMinSeconds: number | null;
  pddMaxMs: number | null;
}

/** Per metric: past its threshold (true), within it (false), or not judged (null: not watched, or too few calls). */
export type MetricStates = Record<QualityMetric, boolean | null>;

export function judgeWindow(limits: QualityLimits, c: WindowCounts): MetricStates {
  const enough = (samples: number) => samples > 0 && samples >= limits.minCalls;
  return {
    asr: limits.asrMinBp === null || !enough(c.attempts) ? null : c.answered * 10_000 < limits.asrMinBp * c.attempts,
    acd:
      limits.acdMinSeconds === null || !enough(c.answered)
        ? null
        : c.answeredMs < limits.acdMinSeconds * 1000 * c.answered,
    pdd: limits.pddMaxMs === null || !enough(c.pddCalls) ? null : c.pddMsSum > limits.pddMaxMs * c.pddCalls,
  };
}

/** A metric whose state changes: `past` true is a crossing (an alert), false a recovery (the alert re-arms). */
export interface Crossing {
  metric: QualityMetric;
  past: boolean;
}

/** The changes from the states last recorded to those judged now; a metric not judged now keeps its state. */
export function crossingsOf(recorded: Record<QualityMetric, boolean>, judged: MetricStates): Crossing[] {
  return QUALITY_METRICS.flatMap((metric) => {
    const now = judged[metric];
    return now === null || now === recorded[metric] ? [] : [{ metric, past: now }];
  });
}
