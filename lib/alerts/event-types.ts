// The webhook event types an endpoint may subscribe to. Add-only: a concept that emits a new event (a failed
// automatic recharge, say) adds its type here, and endpoints subscribed to `*` receive it without a change.

export const WEBHOOK_EVENT_TYPES = [
  "balance.low",
  "balance.recovered",
  "group.disabled",
  "group.enabled",
  "auto_recharge.failed",
  // Quality windows (lib/quality): a metric of a window crossed its threshold, and its recovery.
  "quality.asr_low",
  "quality.acd_low",
  "quality.pdd_high",
  "quality.recovered",
  // Limits at authorization and fraud rules (issue 31): emitted by lib/limits.
  "limit.hit",
  "fraud.rule_hit",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Subscribes to every type, present and future. */
export const ALL_EVENT_TYPES = "*";

/** The type of the event `POST /v1/webhook-endpoints/{id}/test` sends: to that endpoint only, whatever it subscribes. */
export const TEST_EVENT_TYPE = "webhook.test";
