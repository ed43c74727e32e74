import { passkeyOptionsResponse } from "@/lib/portal/passkey-post";

// POST /session/passkey/options: a challenge for signing in with a passkey (lib/portal/passkey-post.ts).
export async function POST(request: Request): Promise<Response> {
  return passkeyOptionsResponse(request);
}
