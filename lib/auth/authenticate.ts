import type { Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { findKeyBySecret, findSessionPrincipal } from "./find-key";
import type { Principal } from "./principal";
import type { PrincipalCache } from "./principal-cache";
import { isSameOrigin, isSecureRequest, isUnsafeMethod, sessionTokenFromCookies } from "./request-origin";
import { verifySessionToken } from "./session-token";

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", detail, undefined, { "WWW-Authenticate": 'Bearer realm="v1"' });
}

/**
 * The two credential sources of /v1: an API key in `Authorization: Bearer`, or the portal's
 * session cookie. Either resolves to the same Principal, checked against the database, or against the
 * principal cache, which every key revocation, session end or rate card change drops (principal-cache.ts).
 * A cookie is sent by the browser whichever site made the request, so a state-changing request
 * authenticated by cookie must come from this site's own pages (403 `cross_origin` otherwise).
 */
export async function authenticate(request: Request, db: Executor, cache?: PrincipalCache): Promise<Principal> {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const match = BEARER.exec(authorization);
    if (!match) throw unauthorized("The Authorization header must be `Bearer <API key>`.");
    const principal = await findKeyBySecret(db, match[1], cache);
    if (!principal) throw unauthorized("The API key is unknown or revoked.");
    return principal;
  }
  const token = sessionTokenFromCookies(request.headers.get("cookie"), isSecureRequest(request));
  if (token) {
    const claims = verifySessionToken(token);
    const principal = claims ? await findSessionPrincipal(db, claims.sessionId, cache) : null;
    if (!principal) throw unauthorized("The session has ended, expired or its key was revoked. Sign in again.");
    if (isUnsafeMethod(request.method) && !isSameOrigin(request, { allowMissing: false })) {
      throw new ApiError(
        "cross_origin",
        "A request authenticated by the portal's session cookie must come from the portal itself.",
      );
    }
    return principal;
  }
  throw unauthorized("Missing credentials: send `Authorization: Bearer <API key>`.");
}
