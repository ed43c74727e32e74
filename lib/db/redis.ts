import type { Redis } from "ioredis";
import { redisUrl } from "@/lib/config/env";
import { processSingleton } from "@/lib/runtime/process-singleton";

/**
 * The process's one Redis client (REDIS_URL), shared by the rate limiter (lib/http/rate-limit.ts) and the read
 * replica's read-your-writes marks (lib/db/read-replica.ts); undefined without REDIS_URL. A command fails at once
 * while Redis is down (no offline queue, one retry), and both users then fall back rather than wait: the limiter
 * admits, a reader reads the primary.
 */
export function sharedRedis(): Redis | undefined {
  const url = redisUrl();
  if (!url) return undefined;
  return processSingleton("redis", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Redis } = require("ioredis") as typeof import("ioredis");
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on("error", () => undefined);
    return redis;
  });
}
