import { intFromEnv } from "@/lib/config/env";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset) */
  resetSeconds: number;
  /** Seconds to wait before one more request is admitted (Retry-After), when refused */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Per-key token bucket (CONTRACT section 6). In memory: one process on the embedded default. */
export class TokenBucketLimiter {
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
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.burst - bucket.tokens) / this.ratePerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)),
    };
  }

  private evictFull(nowMs: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.updatedMs) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(key);
    }
  }
}

const GLOBAL_KEY = Symbol.for("callbook.rateLimiter");
type G = typeof globalThis & { [GLOBAL_KEY]?: TokenBucketLimiter };

export function rateLimiter(): TokenBucketLimiter {
  const g = globalThis as G;
  g[GLOBAL_KEY] ??= new TokenBucketLimiter(intFromEnv("RATE_LIMIT_RPS", 50), intFromEnv("RATE_LIMIT_BURST", 100));
  return g[GLOBAL_KEY];
}
