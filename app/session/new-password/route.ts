import { newPasswordResponse } from "@/lib/portal/people-posts";

// POST /session/new-password: sets a new password with a mailed token (lib/portal/people-posts.ts).
export async function POST(request: Request): Promise<Response> {
  return newPasswordResponse(request);
}
