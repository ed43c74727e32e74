import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryTokenBucket, RedisTokenBucket } from "./rate-limit";

describe("in-memory token bucket", () => {
  it("admits the burst, refuses the next, and refills at the rate", () => {
    const limiter = new MemoryTokenBucket(10, 5);
    const t0 = 1_000_000;
    const first = Array.from({ length: 5 }, () => limiter.take("k", t0));
    expect(first.every((d) => d.allowed)).toBe(true);
    expect(first[4].remaining).toBe(0);
    const refused = limiter.take("k", t0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(limiter.take("other", t0).allowed).toBe(true);
    expect(limiter.take("k", t0 + 100).allowed).toBe(true); // 100 ms at 10/s = one token
    expect(limiter.take("k", t0 + 100).allowed).toBe(false);
  });
});

describe("Redis token bucket (shared across processes)", () => {
  const redis = new Redis(process.env.REDIS_URL || "redis://127.0.0.1:6379", {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  afterAll(() => redis.disconnect());

  it("shares one bucket between two limiter instances", async () => {
    await redis.connect();
    const key = `test-${randomBytes(6).toString("hex")}`;
    const a = new RedisTokenBucket(redis, 1, 4);
    const b = new RedisTokenBucket(redis, 1, 4);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await a.take(key), await b.take(key));
    expect(results.filter((d) => d.allowed)).toHaveLength(4);
    expect(results.at(-1)?.allowed).toBe(false);
  });

  it("admits requests when Redis is unreachable", async () => {
    const down = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    down.on("error", () => undefined);
    const limiter = new RedisTokenBucket(down, 1, 1);
    expect((await limiter.take("x")).allowed).toBe(true);
    down.disconnect();
  });
});
