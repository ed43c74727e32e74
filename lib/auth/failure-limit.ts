import { takeAddressToken } from "@/lib/http/address-limit";
import { authFailureLimit } from "@/lib/config/env";
import { ApiError } from "@/lib/errors/api-error";
import { clientAddress } from "./request-origin";

/**
 * Counts one refused credential (a bad, unknown or revoked API key, a bad session cookie, a failed sign-in) against
 * the client's address. Returns the seconds to wait once the address has spent its allowance
 * (AUTH_FAILURES_PER_MINUTE, AUTH_FAILURE_BURST; docs/contract.md §6), else null. Called only after a credential was
 * refused: a valid one is never slowed nor refused by it, so a client retrying a bad key does not lock out the
 * others behind the same address (an office's NAT). Keys are 128-bit secrets, so this is not what keeps them from
 * being guessed: it makes clients that keep retrying bad credentials back off, and bounds the lookups they cost.
 */
export async function countAuthFailure(headers: { get(name: string): string | null }): Promise<number | null> {
  const decision = await takeAddressToken({ name: "auth-failures", ...authFailureLimit() }, clientAddress(headers));
  return decision && !decision.allowed ? decision.retryAfterSeconds : null;
}

/** countAuthFailure for /v1: throws 429 `rate_limited` with Retry-After once the allowance is spent. */
export async function recordAuthFailure(headers: { get(name: string): string | null }): Promise<void> {
  const wait = await countAuthFailure(headers);
  if (wait !== null) throw authFailuresExceeded(wait);
}

export function authFailuresExceeded(retryAfterSeconds: number): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many failed authentications from this address: retry in ${retryAfterSeconds} s.`,
    undefined,
    { "Retry-After": String(retryAfterSeconds) },
  );
}
