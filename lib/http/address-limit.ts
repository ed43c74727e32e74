import ipaddr from "ipaddr.js";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { tokenBucket, type RateLimitDecision, type RateLimiter } from "./rate-limit";

/**
 * Limits per client address (docs/contract.md §6), for what must be bounded before any key is known: failed
 * authentications (lib/auth/failure-limit.ts), and the like. A named token bucket per address, in Redis when
 * REDIS_URL is set (every app process shares it; it fails open like the per-key limiter), else in this process.
 * The address is the one lib/auth/request-origin.ts clientAddress gives: the TCP peer, or the client a trusted
 * proxy names, never a header a client can write.
 */
export interface AddressLimit {
  /** Names the bucket (and its Redis keys): one per purpose. */
  name: string;
  perMinute: number;
  burst: number;
}

/**
 * The bucket an address counts against: an IPv4 address itself, an IPv6 address's /64 (one subscriber's network:
 * anyone holding one has 2^64 addresses to rotate through). Anything else is counted as itself.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}

/** The process's limiters, one per limit (every route bundle shares them). */
export const addressLimiters = () => processSingleton("addressLimiters", () => new Map<string, RateLimiter>());

function limiterFor(limit: AddressLimit): RateLimiter {
  const limiters = addressLimiters();
  const id = `${limit.name}:${limit.perMinute}:${limit.burst}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = tokenBucket(limit.perMinute / 60, limit.burst, `cb:al:${limit.name}:`);
    limiters.set(id, limiter);
  }
  return limiter;
}

/**
 * Takes one token from the address's bucket of `limit`. null when the limit is off (0) or the address is unknown
 * (a request that did not go through lib/server/forwarded-headers.ts: the first moments of a start).
 */
export async function takeAddressToken(limit: AddressLimit, address: string | null): Promise<RateLimitDecision | null> {
  if (!address || limit.perMinute <= 0 || limit.burst <= 0) return null;
  return limiterFor(limit).take(addressBucket(address));
}
