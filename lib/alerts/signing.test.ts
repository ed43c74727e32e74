import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, signPayload, verifyWebhook, webhookHeaders } from "./signing";

describe("Standard Webhooks signing", () => {
  // The example of the Standard Webhooks specification (and of the svix libraries' tests).
  it("matches the reference signature", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const body = '{"test": 2432232314}';
    expect(signPayload(secret, id, 1614265330, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("is HMAC-SHA256 of id.timestamp.body keyed by the base64-decoded secret", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = Buffer.from(secret.slice(6), "base64");
    const mac = createHmac("sha256", key).update("msg_1.1700000000.{}").digest("base64");
    expect(signPayload(secret, "msg_1", 1_700_000_000, "{}")).toBe(`v1,${mac}`);
  });

  it("signs with every live secret during a rotation; a receiver holding either one verifies", () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const now = 1_700_000_000;
    const headers = webhookHeaders([oldSecret, newSecret], "msg_2", now, '{"a":1}');
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyWebhook(oldSecret, { ...headers }, '{"a":1}', now)).toBe(true);
    expect(verifyWebhook(newSecret, { ...headers }, '{"a":1}', now)).toBe(true);
    expect(verifyWebhook(newWebhookSecret(), { ...headers }, '{"a":1}', now)).toBe(false);
  });

  it("refuses a changed body, id or timestamp, and a stale timestamp", () => {
    const secret = newWebhookSecret();
    const now = 1_700_000_000;
    const headers = { ...webhookHeaders([secret], "msg_3", now, "{}") };
    expect(verifyWebhook(secret, headers, "{ }", now)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, "webhook-id": "msg_4" }, "{}", now)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, "webhook-timestamp": String(now + 1) }, "{}", now)).toBe(false);
    expect(verifyWebhook(secret, headers, "{}", now + 301)).toBe(false);
    expect(verifyWebhook(secret, headers, "{}", now + 300)).toBe(true);
  });

  it("refuses a secret without the whsec_ prefix", () => {
    expect(() => signPayload("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "m", 1, "{}")).toThrow(RangeError);
  });
});
