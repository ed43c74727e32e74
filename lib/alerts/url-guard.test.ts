import { afterEach, describe, expect, it } from "vitest";
import { checkWebhookUrl, isBlockedAddress, WebhookTargetError } from "./url-guard";

describe("webhook target guard", () => {
  const saved = process.env.WEBHOOKS_ALLOW_PRIVATE;
  afterEach(() => {
    if (saved === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    else process.env.WEBHOOKS_ALLOW_PRIVATE = saved;
  });

  it("blocks loopback, private, link-local, CGNAT, unique-local and mapped addresses", () => {
    for (const a of [
      "127.0.0.1",
      "127.1.2.3",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fc00::1",
      "fd12::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "224.0.0.1",
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isBlockedAddress(a), a).toBe(false);
    }
  });

  it("refuses private targets unless WEBHOOKS_ALLOW_PRIVATE=1", async () => {
    delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://[::1]/hook",
      "https://localhost/hook",
      "http://169.254.169.254/latest",
      "http://10.0.0.5/",
    ]) {
      await expect(checkWebhookUrl(url), url).rejects.toThrow(WebhookTargetError);
    }
    await expect(checkWebhookUrl("https://8.8.8.8/hook")).resolves.toBeInstanceOf(URL);
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    await expect(checkWebhookUrl("http://127.0.0.1:8080/hook")).resolves.toBeInstanceOf(URL);
  });

  it("refuses other schemes and URLs with credentials", async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    await expect(checkWebhookUrl("ftp://example.com/")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("file:///etc/passwd")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("https://u:p@example.com/")).rejects.toThrow(WebhookTargetError);
    await expect(checkWebhookUrl("not a url")).rejects.toThrow(WebhookTargetError);
  });
});
