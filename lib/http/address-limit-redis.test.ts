import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";

// Before the limiters exist: they pick Redis or memory once, at their first use (this file runs in its own process).
process.env.REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
const { addressLimiters, takeAddressToken } = await import("./address-limit");
const { sharedRedis } = await import("@/lib/db/redis");

describe("takeAddressToken with REDIS_URL", () => {
  const limit = { name: `test-${randomBytes(4).toString("hex")}`, perMinute: 10, burst: 2 };
  const inspect = new Redis(process.env.REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  afterAll(async () => {
    const keys = await inspect.keys(`cb:al:${limit.name}:*`);
    if (keys.length) await inspect.del(...keys);
    inspect.disconnect();
    sharedRedis()?.disconnect();
  });

  it("keeps the bucket in Redis, where every app process shares it", async () => {
    await inspect.connect();
    // The limiters' client queues nothing while it connects (a request meanwhile is admitted): wait until it is up.
    const shared = sharedRedis()!;
    if (shared.status !== "ready") await new Promise((resolve) => shared.once("ready", resolve));
    const first = [await takeAddressToken(limit, "192.0.2.30"), await takeAddressToken(limit, "192.0.2.30")];
    expect(first.map((d) => d?.allowed)).toEqual([true, true]);
    expect(await inspect.exists(`cb:al:${limit.name}:192.0.2.30`)).toBe(1);
    // Another process: a limiter of its own over the same Redis bucket.
    addressLimiters().clear();
    const refused = await takeAddressToken(limit, "192.0.2.30");
    expect(refused?.allowed).toBe(false);
    expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await takeAddressToken(limit, "192.0.2.31"))?.allowed).toBe(true);
    // The key expires once the bucket would be full again (burst / rate, plus a second).
    expect(await inspect.pttl(`cb:al:${limit.name}:192.0.2.30`)).toBeLessThanOrEqual(13_000);
  });
});
