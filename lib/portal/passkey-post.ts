import { getDb } from "@/lib/db/client";
import { passkeySignInOptions, signInWithPasskey } from "@/lib/people/passkeys";
import { ceremonyClearCookie, ceremonySetCookie, requestChallenge } from "./ceremony-cookie";
import { isSecureRequest, sessionSetCookie } from "./session-cookie";
import { isSameOriginPost, safeReturnPath } from "./sign-in";
import { endPortalSessionOf } from "./sign-out";

// Sign-in with a passkey, from the sign-in page's script (components/people/passkey-sign-in.tsx): POST
// /session/passkey/options hands out a challenge (kept in the cb_passkey cookie), POST /session/passkey checks the
// browser's assertion and opens the session. JSON both ways; the page then goes where `location` says.

function json(body: unknown, status: number, ...cookies: string[]): Response {
  const headers = new Headers({ "content-type": "application/json", "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(JSON.stringify(body), { status, headers });
}

export async function passkeyOptionsResponse(request: Request): Promise<Response> {
  if (!isSameOriginPost(request)) return json({ error: "origin" }, 403);
  const ceremony = await passkeySignInOptions(await getDb());
  return json(ceremony.options, 200, ceremonySetCookie("passkey", ceremony.challenge, isSecureRequest(request)));
}

export async function passkeySignInResponse(request: Request): Promise<Response> {
  if (!isSameOriginPost(request)) return json({ error: "origin" }, 403);
  const secure = isSecureRequest(request);
  const body = (await request.json().catch(() => null)) as { response?: unknown; next?: unknown } | null;
  const challenge = requestChallenge(request, "passkey");
  if (!challenge || !body || typeof body.response !== "object" || body.response === null) {
    return json({ error: "passkey" }, 400, ceremonyClearCookie("passkey", secure));
  }
  const db = await getDb();
  const result = await signInWithPasskey(
    db,
    { response: body.response as { id?: unknown }, challenge },
    request.headers,
  );
  if (!result.ok && result.reason === "throttled") {
    return new Response(JSON.stringify({ error: "throttled", retryAfterSeconds: result.retryAfterSeconds }), {
      status: 429,
      headers: { "content-type": "application/json", "retry-after": String(result.retryAfterSeconds) },
    });
  }
  if (!result.ok) {
    const error = result.reason === "no_organization" ? "no_organization" : "passkey";
    return json({ error }, 401, ceremonyClearCookie("passkey", secure));
  }
  await endPortalSessionOf(db, request);
  const next = safeReturnPath(typeof body.next === "string" ? body.next : undefined);
  return json(
    { location: next },
    200,
    sessionSetCookie(result.session.cookieToken, secure),
    ceremonyClearCookie("passkey", secure),
  );
}
