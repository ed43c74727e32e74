import type { Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { findKeyBySecret, findSessionPrincipal } from "./find-key";
import type { Principal } from "./principal";
import type { PrincipalCache } from "./principal-cache";
import { isSameOrigin, isSecureRequest, isUnsafeMethod, sessionTokenFromCookies } from "./request-origin";
import { verifySessionToken } from "./session-token";

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const BASIC = /^Basic[ ]+(\S+)\s*$/i;

export interface AuthenticateOptions {
  /**
   * Also take an API key as the HTTP Basic password, whatever the user name (docs/contract.md §5): FreeSWITCH's
   * mod_json_cdr sends no other credential (json_cdr.conf.xml `cred=user:password`). POST /v1/cdrs only.
   */
  basic?: boolean;
}

function challenge(basic: boolean): Record<string, string> {
  // The challenges name every scheme the route takes; Basic only where it is taken, so no other route makes a
  // browser prompt for a password.
  return { "WWW-Authenticate": basic ? 'Bearer realm="v1", Basic realm="v1", charset="UTF-8"' : 'Bearer realm="v1"' };
}

/** 401 for a request that presented no credential at all. */
function unauthorized(detail: string, basic: boolean): ApiError {
  return new ApiError("unauthorized", detail, undefined, challenge(basic));
}

/**
 * 401 for a credential that was presented and refused (a malformed header, an unknown or revoked key, a bad
 * session cookie), as opposed to none at all: the wrapper counts these per client address (lib/auth/failure-limit.ts).
 */
export class CredentialRefused extends ApiError {
  constructor(detail: string, basic: boolean) {
    super("unauthorized", detail, undefined, challenge(basic));
  }
}

/** The password of RFC 7617 credentials (base64 of `user-id:password`; the user id holds no colon), or null. */
function basicPassword(token: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return null;
  const decoded = Buffer.from(token, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * The credential sources of /v1: an API key in `Authorization: Bearer`, the portal's session cookie, and on
 * routes that opt in (`basic`) an API key as the HTTP Basic password. Each resolves to the same Principal,
 * checked against the database, or against the principal cache, which every key revocation, session end or
 * rate card change drops (principal-cache.ts). A browser sends a cookie, and Basic credentials it was once given,
 * whichever site made the request, so a state-changing request authenticated by either must come from this
 * site's own pages (403 `cross_origin` otherwise; a switch sends no Origin).
 */
export async function authenticate(
  request: Request,
  db: Executor,
  cache?: PrincipalCache,
  options: AuthenticateOptions = {},
): Promise<Principal> {
  const basic = options.basic === true;
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const bearer = BEARER.exec(authorization);
    if (bearer) {
      const principal = await findKeyBySecret(db, bearer[1], cache);
      if (!principal) throw new CredentialRefused("The API key is unknown, revoked or expired.", basic);
      return principal;
    }
    const basicMatch = basic ? BASIC.exec(authorization) : null;
    if (basicMatch) {
      const password = basicPassword(basicMatch[1]);
      if (password === null) {
        throw new CredentialRefused("HTTP Basic credentials must be base64 of `user:API key` (any user name).", basic);
      }
      const principal = await findKeyBySecret(db, password, cache);
      if (!principal)
        throw new CredentialRefused("The API key (the HTTP Basic password) is unknown, revoked or expired.", basic);
      if (isUnsafeMethod(request.method) && !isSameOrigin(request, { allowMissing: true })) {
        throw new ApiError("cross_origin", "HTTP Basic credentials are refused on a request from another site's page.");
      }
      return principal;
    }
    throw new CredentialRefused(
      basic
        ? "The Authorization header must be `Bearer <API key>`, or HTTP Basic with the API key as password."
        : "The Authorization header must be `Bearer <API key>` (HTTP Basic is taken on POST /v1/cdrs only).",
      basic,
    );
  }
  const token = sessionTokenFromCookies(request.headers.get("cookie"), isSecureRequest(request));
  if (token) {
    const claims = verifySessionToken(token);
    const principal = claims ? await findSessionPrincipal(db, claims.sessionId, cache) : null;
    if (!principal)
      throw new CredentialRefused(
        "The session has ended or expired, or its key was revoked or expired. Sign in again.",
        basic,
      );
    if (isUnsafeMethod(request.method) && !isSameOrigin(request, { allowMissing: false })) {
      throw new ApiError(
        "cross_origin",
        "A request authenticated by the portal's session cookie must come from the portal itself.",
      );
    }
    if (principal.twoFactorRequired) {
      throw new ApiError(
        "two_factor_required",
        "Your organization requires a second factor: set one up on the portal's Security page (/security), then retry.",
      );
    }
    return principal;
  }
  throw unauthorized(
    basic
      ? "Missing credentials: send `Authorization: Bearer <API key>`, or HTTP Basic with the API key as password."
      : "Missing credentials: send `Authorization: Bearer <API key>`.",
    basic,
  );
}
