import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { findKeyById } from "@/lib/auth/find-key";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import { verifySessionToken } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db/client";
import { SESSION_COOKIE_NAMES } from "./session-cookie";
import { safeReturnPath } from "./sign-in";

/** What portal pages may know about the signed-in key: serialisable, and never the secret. */
export interface PortalSession {
  keyId: string;
  scopes: string[];
  canReadCost: boolean;
  /** null for a platform key: it picks an account instead of having one. */
  billingGroupId: string | null;
}

/**
 * The principal behind the session cookie, checked against the database (revoked key, expired or
 * forged token -> null). Cached per request so a layout and its page share one lookup.
 */
export const getPortalPrincipal = cache(async (): Promise<Principal | null> => {
  const store = await cookies();
  let token: string | undefined;
  for (const name of SESSION_COOKIE_NAMES) token ??= store.get(name)?.value;
  if (!token) return null;
  const keyId = verifySessionToken(token);
  if (!keyId) return null;
  return findKeyById(await getDb(), keyId);
});

export function toPortalSession(principal: Principal): PortalSession {
  return {
    keyId: principal.keyId,
    scopes: [...principal.scopes].sort(),
    canReadCost: canReadCost(principal),
    billingGroupId: principal.billingGroupId,
  };
}

/**
 * Every portal page that serves data calls this first (not only a layout: layouts are not
 * re-rendered on client navigation). No valid session -> the sign-in page, back here afterwards.
 */
export async function requirePortalSession(returnTo: string): Promise<{ session: PortalSession; principal: Principal }> {
  const principal = await getPortalPrincipal();
  if (!principal) redirect(`/sign-in?next=${encodeURIComponent(safeReturnPath(returnTo))}`);
  return { session: toPortalSession(principal), principal };
}

