import { isSecureRequest, sessionClearCookies } from "@/lib/portal/session-cookie";
import { isSameOriginPost } from "@/lib/portal/sign-in";

// POST /session/sign-out: forget the session cookie (the key itself stays valid).
export async function POST(request: Request): Promise<Response> {
  if (!isSameOriginPost(request)) return new Response(null, { status: 403 });
  const headers = new Headers({ location: "/sign-in?signedOut=1", "cache-control": "no-store" });
  for (const c of sessionClearCookies(isSecureRequest(request))) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
