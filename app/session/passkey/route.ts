import { passkeySignInResponse } from "@/lib/portal/passkey-post";

// POST /session/passkey: the browser's passkey assertion; opens the session (lib/portal/passkey-post.ts).
export async function POST(request: Request): Promise<Response> {
  return passkeySignInResponse(request);
}
