import { ssoStartResponse } from "@/lib/portal/sso-sign-in";

// POST /session/sso: "Sign in with SSO" (lib/portal/sso-sign-in.ts): a page that continues to the provider.
export async function POST(request: Request): Promise<Response> {
  return ssoStartResponse(request);
}
