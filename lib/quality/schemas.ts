import { z } from "zod";
import { idFilterSchema, idSchema } from "@/lib/ids/ids";

// Bodies and answers of /v1/quality and /v1/quality/thresholds (docs/contract.md "Quality windows and alerts").
// ASR is a percentage, ACD seconds, PDD milliseconds: ratios and durations, not money.

export const MAX_QUALITY_THRESHOLDS = 50;
/** The longest window, minutes (a day): windows are read from the calls themselves. */
export const MAX_WINDOW_MINUTES = 1440;

const prefix = z
  .string()
  .regex(/^\+?\d{1,15}$/, "must be 1 to 15 digits (a leading + is dropped)")
  .transform((p) => p.replace(/^\+/, ""));

const thresholdBody = z.strictObject({
  prefix: prefix
    .optional()
    .describe("Leading digits of the dialled number (`44`, `4420`); absent: every outbound call of the account"),
  windowMinutes: z
    .number()
    .int()
    .min(1)
    .max(MAX_WINDOW_MINUTES)
    .default(15)
    .describe("The sliding window: calls that started in the last N minutes"),
  minCalls: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10)
    .describe("Calls a metric needs in the window before it is judged (ASR: attempts, ACD: answered, PDD: with a PDD)"),
  asrMin: z
    .number()
    .min(0)
    .max(100)
    .multipleOf(0.01)
    .optional()
    .describe("`quality.asr_low` fires when ASR (answered / attempted, percent) falls below it"),
  acdMin: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .optional()
    .describe("`quality.acd_low` fires when ACD (average seconds answered, `answerTime` to `endTime`) falls below it"),
  pddMax: z
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .optional()
    .describe("`quality.pdd_high` fires when the average post-dial delay (milliseconds) rises above it"),
});

export const qualityThresholdsBodySchema = z
  .strictObject({
    billingGroupId: idSchema("bg", "The account (platform callers; a group's caller may name its own only)").optional(),
    thresholds: z
      .array(thresholdBody)
      .max(MAX_QUALITY_THRESHOLDS, `at most ${MAX_QUALITY_THRESHOLDS} thresholds`)
      .refine((list) => new Set(list.map((t) => t.prefix ?? "")).size === list.length, "one threshold per prefix")
      .describe("The whole set, one per prefix (and at most one without); [] clears it"),
  })
  .meta({ id: "QualityThresholdsRequest", description: "An account's quality thresholds, replaced as a whole" });

export const qualityThresholdSchema = z.object({
  prefix: z.string().nullable().describe("null: every outbound call of the account"),
  windowMinutes: z.number().int(),
  minCalls: z.number().int(),
  asrMin: z.number().nullable().describe("Percent; null: ASR not watched"),
  acdMin: z.number().int().nullable().describe("Seconds; null: ACD not watched"),
  pddMax: z.number().int().nullable().describe("Milliseconds; null: PDD not watched"),
  asrLow: z.boolean().describe("ASR was below `asrMin` when last judged (`quality.recovered` fires when it rises)"),
  acdLow: z.boolean().describe("ACD was below `acdMin` when last judged"),
  pddHigh: z.boolean().describe("PDD was above `pddMax` when last judged"),
  evaluatedAt: z.string().nullable().describe("When the window was last judged, ISO 8601; null: not yet"),
});

export const qualityThresholdsSchema = z
  .object({
    billingGroupId: z.string(),
    thresholds: z.array(qualityThresholdSchema).describe("The account's first (no prefix), then by prefix"),
  })
  .meta({ id: "QualityThresholds", description: "An account's quality thresholds and their state" });

export const qualityThresholdsQuerySchema = z.object({
  account: idFilterSchema("bg", "The account (platform callers: required)"),
});

const WINDOW = /^([1-9]\d{0,3})(m|h)$/;

/** `15m`, `1h`: the window in minutes, or null when it is not one of those forms or is longer than a day. */
export function windowMinutesOf(text: string): number | null {
  const match = WINDOW.exec(text);
  if (!match) return null;
  const minutes = Number(match[1]) * (match[2] === "h" ? 60 : 1);
  return minutes <= MAX_WINDOW_MINUTES ? minutes : null;
}

export const QUALITY_GROUP_BY = ["account", "prefix"] as const;

export const qualityQuerySchema = z.object({
  window: z
    .string()
    .default("15m")
    .refine((w) => windowMinutesOf(w) !== null, "must be minutes or hours (`15m`, `1h`), at most 24h")
    .describe("The sliding window ending now: `15m`, `1h`, at most `24h`"),
  groupBy: z
    .enum(QUALITY_GROUP_BY)
    .default("account")
    .describe("`account`: one row per account; `prefix`: one per account and matched rate-card prefix"),
  account: idFilterSchema("bg", "One account (a platform caller without it: every account)"),
});

export const qualityWindowSchema = z.object({
  billingGroupId: z.string(),
  prefix: z
    .string()
    .nullable()
    .optional()
    .describe("groupBy=prefix: the matched rate-card prefix (null: calls no rate matched)"),
  attempts: z.number().int().describe("Outbound calls that started in the window"),
  answered: z.number().int(),
  asr: z.number().nullable().describe("Answered / attempts, percent (2 decimals); null without attempts"),
  acd: z
    .number()
    .nullable()
    .describe("Average seconds answered (`answerTime` to `endTime`) of answered calls (1 decimal); null without any"),
  pdd: z.number().nullable().describe("Average post-dial delay, ms; null when no call carried one"),
  pddCalls: z.number().int().describe("Calls that carried a post-dial delay"),
});

export const qualityReportSchema = z
  .object({
    window: z.string().describe("As asked, e.g. `15m`"),
    from: z.string().describe("Start of the window, ISO 8601 (calls with startTime at or after it)"),
    to: z.string().describe("End of the window (now), ISO 8601"),
    groupBy: z.enum(QUALITY_GROUP_BY),
    windows: z.array(qualityWindowSchema).describe("By account, then by attempts (most first)"),
  })
  .meta({ id: "QualityReport", description: "ASR, ACD and PDD of outbound calls over a sliding window" });

export type QualityThresholdsBody = z.output<typeof qualityThresholdsBodySchema>;
export type QualityThresholds = z.output<typeof qualityThresholdsSchema>;
export type QualityThreshold = z.output<typeof qualityThresholdSchema>;
export type QualityQuery = z.output<typeof qualityQuerySchema>;
export type QualityReport = z.output<typeof qualityReportSchema>;
export type QualityWindow = z.output<typeof qualityWindowSchema>;
