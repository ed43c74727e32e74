import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// Standard Webhooks (https://www.standardwebhooks.com/): `webhook-id`, `webhook-timestamp` (Unix seconds) and
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one signature per live secret, space-separated,
// so a receiver holding either the old or the new secret verifies during a rotation.

const PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new RangeError("a webhook secret starts with whsec_");
  const key = Buffer.from(secret.slice(PREFIX.length), "base64");
  if (key.length < 24) throw new RangeError("a webhook secret holds at least 24 bytes");
  return key;
}

/** One `v1,<base64>` signature of a message. */
export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three headers of one delivery attempt, signed with every given secret. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): WebhookHeaders {
  if (secrets.length === 0) throw new RangeError("an endpoint needs at least one secret");
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signPayload(s, id, timestampSeconds, body)).join(" "),
  };
}

/** Receivers refuse a timestamp further than this from their clock (replay protection). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/**
 * A receiver's check (used by our tests, and a reference for customers): true when one of the `v1` signatures of
 * the header matches `secret` and the timestamp is within the tolerance of `nowSeconds`.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signPayload(secret, id, Number(timestamp), body));
  return signatures.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
