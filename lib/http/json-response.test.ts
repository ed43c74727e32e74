import { describe, expect, it } from "vitest";
import { COMPRESS_FROM_BYTES, noStoreCacheControl } from "./json-response";

describe("noStoreCacheControl", () => {
  it("adds no-transform below 1 KiB of UTF-8, counting bytes, not characters", () => {
    expect(noStoreCacheControl("")).toBe("no-store, no-transform");
    expect(noStoreCacheControl("x".repeat(COMPRESS_FROM_BYTES - 1))).toBe("no-store, no-transform");
    expect(noStoreCacheControl("x".repeat(COMPRESS_FROM_BYTES))).toBe("no-store");
    // 600 characters, 1 200 bytes: compressible.
    expect(noStoreCacheControl("é".repeat(600))).toBe("no-store");
    // 341 characters of 3 bytes each: 1 023 bytes; one more is 1 026.
    expect(noStoreCacheControl("€".repeat(341))).toBe("no-store, no-transform");
    expect(noStoreCacheControl("€".repeat(342))).toBe("no-store");
    // A surrogate pair is 2 code units, 4 bytes.
    expect(noStoreCacheControl("😀".repeat(255))).toBe("no-store, no-transform");
    expect(noStoreCacheControl("😀".repeat(256))).toBe("no-store");
  });
});
