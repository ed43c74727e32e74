import { afterEach, describe, expect, it, vi } from "vitest";
import { rateLimiter, RedisTokenBucket } from "@/lib/http/rate-limit";
import { sharedRedis } from "./redis";

describe("the process's one Redis client", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is absent without REDIS_URL, then one client for every user in the process", async () => {
    vi.stubEnv("REDIS_URL", "");
    expect(sharedRedis()).toBeUndefined();
    vi.stubEnv("REDIS_URL", process.env.REDIS_URL || "redis://127.0.0.1:6379");
    const redis = sharedRedis()!;
    expect(sharedRedis()).toBe(redis);
    // No offline queue: commands fail fast until the connection is up (the users fall back meanwhile).
    if (redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve));
    expect(await redis.ping()).toBe("PONG");
    // The rate limiter takes the same client (the read replica's marks do too: lib/db/read-replica.ts).
    const limiter = rateLimiter();
    expect(limiter).toBeInstanceOf(RedisTokenBucket);
    expect((limiter as unknown as { redis: unknown }).redis).toBe(redis);
    redis.disconnect();
  });
});
