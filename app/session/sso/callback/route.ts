import { ssoCallbackResponse } from "@/lib/portal/sso-sign-in";

// GET /session/sso/callback: where the identity provider sends the browser back (register this URL there).
export async function GET(request: Request): Promise<Response> {
  return ssoCallbackResponse(request);
}
