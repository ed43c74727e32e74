import type { Db } from "@/lib/db/client";
import { endPortalSession } from "@/lib/auth/portal-sessions";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { isSecureRequest, sessionTokenFromCookies } from "@/lib/auth/request-origin";
import { verifySessionToken } from "@/lib/auth/session-token";

/**
 * Ends the server-side session named by the request's cookie, if any. The UPDATE notifies every
 * process's principal cache; this process's cache is also dropped at once, because on PostgreSQL
 * the notification arrives asynchronously and the browser may replay the cookie right away.
 */
export async function endPortalSessionOf(db: Db, request: Request): Promise<void> {
  const token = sessionTokenFromCookies(request.headers.get("cookie"), isSecureRequest(request));
  const claims = token ? verifySessionToken(token) : null;
  if (!claims) return;
  if (await endPortalSession(db, claims.sessionId)) principalCacheFor(db).invalidate();
}
