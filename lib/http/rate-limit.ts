import { rateLimitSettings } from "@/lib/config/env";
import { sharedRedis } from "@/lib/db/redis";
import { processSingleton } from "@/lib/runtime/process-singleton";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset) */
  resetSeconds: number;
  /** Seconds to wait before one more request is admitted (Retry-After), when refused */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly enabled: boolean;
  take(key: string): RateLimitDecision | Promise<RateLimitDecision>;
}

function decision(allowed: boolean, tokens: number, rate: number, burst: number): RateLimitDecision {
  return {
    allowed,
    limit: burst,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((burst - tokens) / rate),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
  };
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Per-key token bucket (docs/contract.md §6), in memory: right for one process (the embedded default). */
export class MemoryTokenBucket implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  get enabled(): boolean {
    return this.ratePerSecond > 0 && this.burst > 0;
  }

  take(key: string, nowMs = Date.now()): RateLimitDecision {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedMs: nowMs };
      this.buckets.set(key, bucket);
      if (this.buckets.size > 100_000) this.evictFull(nowMs);
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(this.burst, bucket.tokens + elapsed * this.ratePerSecond);
    bucket.updatedMs = nowMs;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return decision(allowed, bucket.tokens, this.ratePerSecond, this.burst);
  }

  private evictFull(nowMs: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.updatedMs) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(key);
    }
  }
}

// The same bucket as above, atomically in Redis, timed by Redis's clock so app processes agree.
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil then tokens = burst; ts = now end
tokens = math.min(burst, tokens + math.max(0, now - ts) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

export type RedisLike = {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
};

/**
 * Shared across app processes (scaled out on one PostgreSQL) when REDIS_URL is set.
 * If Redis is unreachable the request is admitted: a limiter outage must not take the API down.
 */
export class RedisTokenBucket implements RateLimiter {
  constructor(
    private readonly redis: RedisLike,
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly prefix = "cb:rl:",
  ) {}

  get enabled(): boolean {
    return this.ratePerSecond > 0 && this.burst > 0;
  }

  async take(key: string): Promise<RateLimitDecision> {
    try {
      const [allowed, tokens] = (await this.redis.eval(
        TAKE_SCRIPT,
        1,
        this.prefix + key,
        this.ratePerSecond,
        this.burst,
      )) as [number, string];
      return decision(allowed === 1, Number(tokens), this.ratePerSecond, this.burst);
    } catch {
      return decision(true, this.burst - 1, this.ratePerSecond, this.burst);
    }
  }
}

/**
 * A token bucket per key: in Redis when REDIS_URL is set (shared by every app process, on the process's one client:
 * lib/db/redis.ts), else in this process.
 */
export function tokenBucket(ratePerSecond: number, burst: number, redisPrefix: string): RateLimiter {
  const redis = ratePerSecond > 0 && burst > 0 ? sharedRedis() : undefined;
  return redis
    ? new RedisTokenBucket(redis, ratePerSecond, burst, redisPrefix)
    : new MemoryTokenBucket(ratePerSecond, burst);
}

/** The process's per-key limiter (docs/contract.md §6). */
export function rateLimiter(): RateLimiter {
  return processSingleton("rateLimiter", () => {
    const { ratePerSecond, burst } = rateLimitSettings();
    return tokenBucket(ratePerSecond, burst, "cb:rl:");
  });
}
