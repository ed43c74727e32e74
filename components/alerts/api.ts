"use client";

import { ApiProblem } from "@/components/api/api-client";
import { WEBHOOK_EVENT_TYPES } from "@/lib/alerts/event-types";

// What the Alerts page reads from /v1 (lib/alerts/schemas.ts is the source; kept here as plain types so nothing of
// the server is bundled).

export interface Thresholds {
  billingGroupId: string;
  currency: string;
  thresholds: { amount: number; crossed: boolean }[];
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  billingGroupId: string | null;
  disabled: boolean;
  createdAt: string;
  secretPrefix: string;
  secret?: string;
}

export interface DeliveryAttempt {
  attemptedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

export interface Delivery {
  eventId: string;
  type: string;
  createdAt: string;
  status: "pending" | "delivered" | "failed";
  nextAttemptAt: string | null;
  attempts: DeliveryAttempt[];
}

export interface DeliveryPage {
  deliveries: Delivery[];
  nextPageUrl: string | null;
}

/** The event types an endpoint may subscribe to, from the one list the server checks against. */
export const EVENT_TYPES = WEBHOOK_EVENT_TYPES;

export function problemText(error: unknown): string {
  return error instanceof ApiProblem ? error.detail : "The request failed. Try again.";
}
