import { passwordResetRequestResponse } from "@/lib/portal/people-posts";

// POST /session/password-reset: mails a reset link (the same answer for any address) (lib/portal/people-posts.ts).
export async function POST(request: Request): Promise<Response> {
  return passwordResetRequestResponse(request);
}
