import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { findSessionPrincipal } from "@/lib/auth/find-key";
import { canReadOperatorCost } from "@/lib/auth/cost-view";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { isSecureHeaders, sessionTokenFromCookies } from "@/lib/auth/request-origin";
import { verifySessionToken } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db/client";
import { canUsePortal, safeReturnPath } from "./sign-in";

/** What portal pages may know about the signed-in key: serialisable, and never the secret. */
export interface PortalSession {
  keyId: string;
  scopes: string[];
  canReadCost: boolean;
  /**
   * The platform's cost view (lib/auth/cost-view.ts): suppliers, the carrier's buy rates and costs, the reports' buy
   * cost and margin. A reseller's cost session has canReadCost (its own margins on its customers' calls) without it.
   */
  canReadOperatorCost: boolean;
  /** The session reaches more accounts than its own (a reseller's subtree): the call log shows the account. */
  reachesSeveral: boolean;
  /** null for a platform key: it picks an account instead of having one. */
  billingGroupId: string | null;
  /** A signed-in person's role (null for a key's session). */
  role: string | null;
  /** The role may see and manage the organization's members: the Members page is in the navigation. */
  canManageMembers: boolean;
  /** A signed-in person (the Security page is in the navigation). */
  person: boolean;
  /** Their organization requires a second factor they have not set up: only the Security page is theirs. */
  twoFactorRequired: boolean;
}

/**
 * The principal behind the session cookie, checked against the database (ended or expired session,
 * revoked key, forged token, a key that cannot read calls -> null). Over https only the `__Host-`
 * cookie counts (https as lib/auth/request-origin.ts isSecureHeaders decides). Cached per
 * request so a layout and its page share one lookup.
 */
export const getPortalPrincipal = cache(async (): Promise<Principal | null> => {
  const principal = await getSignedInPrincipal();
  return principal && canUsePortal(principal) ? principal : null;
});

/**
 * Whoever the session cookie names, including a person who may not use the portal yet: one whose organization
 * requires a second factor they have not set up (no scopes, `twoFactorRequired`). Only the Security page, its
 * actions and the header take them; everything else goes through getPortalPrincipal.
 */
export const getSignedInPrincipal = cache(async (): Promise<Principal | null> => {
  const h = await headers();
  const token = sessionTokenFromCookies(h.get("cookie"), isSecureHeaders(h));
  if (!token) return null;
  const claims = verifySessionToken(token);
  if (!claims) return null;
  const db = await getDb();
  const principal = await findSessionPrincipal(db, claims.sessionId, principalCacheFor(db));
  return principal && (canUsePortal(principal) || principal.twoFactorRequired) ? principal : null;
});

export function toPortalSession(principal: Principal): PortalSession {
  return {
    keyId: principal.keyId,
    // A reseller's owner or admin keeps accounts:write, payments:write and rates:write: the console and the sell-deck
    // pages open on its subtree (the API's reach); the suppliers' deck pages are the platform's (pages.ts `platform`).
    scopes: [...principal.scopes].sort(),
    canReadCost: canReadCost(principal),
    canReadOperatorCost: canReadOperatorCost(principal),
    reachesSeveral: (principal.reachGroupIds?.length ?? 1) > 1,
    billingGroupId: principal.billingGroupId,
    role: principal.role ?? null,
    canManageMembers: principal.scopes.has("members:read"),
    person: principal.via === "user_session",
    twoFactorRequired: principal.twoFactorRequired === true,
  };
}

/**
 * Every portal page that serves data calls this first (not only a layout: layouts are not
 * re-rendered on client navigation). No valid session -> the sign-in page, back here afterwards.
 */
export async function requirePortalSession(
  returnTo: string,
): Promise<{ session: PortalSession; principal: Principal }> {
  const principal = await getPortalPrincipal();
  if (!principal) {
    // A member who must first set up a second factor reaches only the Security page.
    if ((await getSignedInPrincipal())?.twoFactorRequired) redirect("/security?required=1");
    redirect(`/sign-in?next=${encodeURIComponent(safeReturnPath(returnTo))}`);
  }
  return { session: toPortalSession(principal), principal };
}

/** The Security page's session: a signed-in person (not a key's session), enrolled or about to. */
export async function requirePersonSession(
  returnTo: string,
): Promise<{ session: PortalSession; principal: Principal }> {
  const principal = await getSignedInPrincipal();
  if (!principal) redirect(`/sign-in?next=${encodeURIComponent(safeReturnPath(returnTo))}`);
  return { session: toPortalSession(principal), principal };
}
