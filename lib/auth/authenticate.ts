import type { Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/api/errors";
import { findKeyById, findKeyBySecret } from "./find-key";
import type { Principal } from "./principal";
import type { PrincipalCache } from "./principal-cache";
import { verifySessionToken } from "./session-token";

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

function unauthorized(detail: string): ApiError {
  return new ApiError("unauthorized", detail, undefined, { "WWW-Authenticate": 'Bearer realm="v1"' });
}

function sessionCookie(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === "__Host-cb_session" || name === "cb_session") return rest.join("=");
  }
  return null;
}

/** A forged cookie may carry malformed percent-escapes: that is a bad credential (401), not a 500. */
function decodeCookieValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return "";
  }
}

/**
 * The two credential sources of /v1: an API key in `Authorization: Bearer`, or the portal's
 * session cookie. Either resolves to the same Principal, checked against the database, or against the
 * principal cache, which every key revocation or rate card change drops (principal-cache.ts).
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
  const token = sessionCookie(request);
  if (token) {
    const keyId = verifySessionToken(decodeCookieValue(token));
    const principal = keyId ? await findKeyById(db, keyId, cache) : null;
    if (!principal) throw unauthorized("The session has expired or its key was revoked. Sign in again.");
    return principal;
  }
  throw unauthorized("Missing credentials: send `Authorization: Bearer <API key>`.");
}
