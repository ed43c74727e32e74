import { defineOperation } from "@/lib/openapi/operation";
import {
  qualityQuerySchema,
  qualityReportSchema,
  qualityThresholdsBodySchema,
  qualityThresholdsQuerySchema,
  qualityThresholdsSchema,
} from "./schemas";

/**
 * The /v1 operations on call quality (routes in app/v1/quality; docs/contract.md "Quality windows and alerts"). A
 * caller bound to a billing group reaches its own account only (naming another answers 404); a platform caller any.
 */

const REACH =
  "A caller bound to a billing group reaches its own account only (another's answers 404, as an unknown id); a " +
  "platform caller every account.";

export const getQualityOperation = defineOperation({
  operationId: "getQuality",
  method: "GET",
  path: "/v1/quality",
  tag: "Quality",
  summary: "ASR, ACD and PDD over a sliding window",
  description:
    "The outbound calls that started in the last `window` (`15m` by default, at most `24h`), per account or per " +
    "account and matched rate-card prefix (`groupBy=prefix`): attempts, answered calls, ASR (answered / attempts, " +
    "percent), ACD (average time answered of answered calls, `answerTime` to `endTime`, in seconds; not rounded by any rate's increment) and PDD (average post-dial delay of the calls that " +
    "carried one, from the CDR's `pdd`). A metric without calls to average is null, never 0. Read from the calls " +
    `themselves (a CDR counts once stored); a platform caller without \`account\` gets every account. ${REACH}`,
  scope: "calls:read",
  query: qualityQuerySchema,
  responses: { 200: { description: "The windows", body: qualityReportSchema } },
});

export const getQualityThresholdsOperation = defineOperation({
  operationId: "getQualityThresholds",
  method: "GET",
  path: "/v1/quality/thresholds",
  tag: "Quality",
  summary: "Quality thresholds of an account",
  description: `Each threshold's limits and the state each metric was last judged in. A platform caller names the account (\`account\`). ${REACH}`,
  scope: "alerts:read",
  query: qualityThresholdsQuerySchema,
  responses: { 200: { description: "The thresholds", body: qualityThresholdsSchema } },
});

export const putQualityThresholdsOperation = defineOperation({
  operationId: "putQualityThresholds",
  method: "PUT",
  path: "/v1/quality/thresholds",
  tag: "Quality",
  summary: "Replace the quality thresholds of an account",
  description:
    "The whole set (`[]` clears it): per account (no `prefix`) and per dialled-number prefix, a sliding window and " +
    "any of `asrMin`, `acdMin`, `pddMax`. Every server process judges the windows every `QUALITY_INTERVAL_MS` (1 " +
    "minute); a metric judged past its limit fires `quality.asr_low`, `quality.acd_low` or `quality.pdd_high` once " +
    "(a webhook event, signed, and an audit event of the same name), and `quality.recovered` when it is back within " +
    "it, which re-arms it. A metric with fewer than `minCalls` calls in the window is not judged. A metric whose " +
    "limit and window are unchanged keeps its state; a new or changed one starts within it, so a window already past " +
    "it fires at the next judgement. Replacing a set with the same set changes nothing (safe to repeat). Recorded " +
    `in the audit log as \`quality_threshold.changed\` (before and after). ${REACH}`,
  scope: "alerts:write",
  body: qualityThresholdsBodySchema,
  responses: { 200: { description: "The thresholds now", body: qualityThresholdsSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

/** The /v1 operations on quality, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const QUALITY_OPERATIONS = [
  getQualityOperation,
  getQualityThresholdsOperation,
  putQualityThresholdsOperation,
] as const;
