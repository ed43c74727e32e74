import { clientAddress } from "@/lib/auth/request-origin";
import { peopleRequestLimits } from "@/lib/config/env";
import { takeAddressToken } from "@/lib/http/address-limit";

/**
 * The flows a person starts without being signed in, or that mail someone, or that try a secret (a second factor's
 * code, a password to change it): each has its own buckets.
 */
export type PeopleRequest = "sign-in" | "password-reset" | "invitation" | "second-factor";

/** A refused attempt: how long to wait, and which bucket was spent (the answer names it). */
export interface PeopleThrottle {
  ok: false;
  reason: "throttled";
  retryAfterSeconds: number;
  /** address: the client's address (every account it tried); account: the email or person named. */
  limit: "address" | "account";
}

/**
 * Counts one request of a flow against the client's address and against the account it names (the email,
 * lower-cased), every time, whether or not that account exists: the answer and its timing must not tell (README
 * "People, organizations and roles"). Returns the throttle when either bucket is spent (the longer wait), else null. The
 * buckets are lib/http/address-limit.ts's, shared through Redis when REDIS_URL is set; an email is counted as itself.
 */
export async function takePeopleRequest(
  flow: PeopleRequest,
  account: string,
  headers: { get(name: string): string | null },
): Promise<PeopleThrottle | null> {
  const limits = peopleRequestLimits();
  const byAddress = await takeAddressToken({ name: `people-${flow}`, ...limits.address }, clientAddress(headers));
  const byAccount = await takeAddressToken(
    { name: `people-${flow}-account`, ...limits.account },
    `account:${account.trim().toLowerCase()}`,
  );
  const spent = [
    { limit: "address" as const, decision: byAddress },
    { limit: "account" as const, decision: byAccount },
  ].flatMap(({ limit, decision }) =>
    decision && !decision.allowed ? [{ limit, retryAfterSeconds: decision.retryAfterSeconds }] : [],
  );
  if (spent.length === 0) return null;
  const longest = spent.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
  return { ok: false, reason: "throttled", ...longest };
}
