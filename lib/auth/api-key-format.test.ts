import { describe, expect, it } from "vitest";
import { generateApiKeySecret, hashApiKey, isWellFormedApiKey } from "./api-key-format";

describe("API key format", () => {
  it("generates distinct, well-formed keys", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKeySecret));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(isWellFormedApiKey(k)).toBe(true);
  });

  it("refuses a mistyped key by its checksum", () => {
    const key = generateApiKeySecret();
    const i = 10;
    const typo = key.slice(0, i) + (key[i] === "a" ? "b" : "a") + key.slice(i + 1);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`xx_${key.slice(3)}`)).toBe(false);
  });

  it("hashes without keeping the secret", () => {
    const key = generateApiKeySecret();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key);
  });
});
