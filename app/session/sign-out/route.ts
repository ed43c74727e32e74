import { getDb } from "@/lib/db/client";
import { isSecureRequest, sessionClearCookies } from "@/lib/portal/session-cookie";
import { isSameOriginPost } from "@/lib/portal/sign-in";
import { endPortalSessionOf } from "@/lib/portal/sign-out";

// POST /session/sign-out: ends the session on the server (a copy of the cookie stops working at
// once) and clears the cookie. The key itself stays valid.
export async function POST(request: Request): Promise<Response> {
  if (!isSameOriginPost(request)) return new Response(null, { status: 403 });
  await endPortalSessionOf(await getDb(), request);
  const headers = new Headers({ location: "/sign-in?signedOut=1", "cache-control": "no-store" });
  for (const c of sessionClearCookies(isSecureRequest(request))) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
