import { clientAddress } from "@/lib/auth/request-origin";
import { peopleRequestLimits } from "@/lib/config/env";
import { takeAddressToken } from "@/lib/http/address-limit";

/**
 * The flows a person starts without being signed in, or that mail someone, or that try a secret (a second factor's
 * code, a password to change it): each has its own buckets.
 */
export type PeopleRequest = "sign-in" | "password-reset" | "invitation" | "second-factor";

/**
 * Counts one request of a flow against the client's address and against the account it names (the email,
 * lower-cased), every time, whether or not that account exists: the answer and its timing must not tell (README
 * "People, organizations and roles"). Returns the seconds to wait when either bucket is spent, else null. The
 * buckets are lib/http/address-limit.ts's, shared through Redis when REDIS_URL is set; an email is counted as itself.
 */
export async function takePeopleRequest(
  flow: PeopleRequest,
  account: string,
  headers: { get(name: string): string | null },
): Promise<number | null> {
  const limits = peopleRequestLimits();
  const byAddress = await takeAddressToken({ name: `people-${flow}`, ...limits.address }, clientAddress(headers));
  const byAccount = await takeAddressToken(
    { name: `people-${flow}-account`, ...limits.account },
    `account:${account.trim().toLowerCase()}`,
  );
  const waits = [byAddress, byAccount].filter((d) => d && !d.allowed).map((d) => d!.retryAfterSeconds);
  return waits.length ? Math.max(...waits) : null;
}
