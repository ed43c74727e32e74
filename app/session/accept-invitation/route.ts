import { acceptInvitationResponse } from "@/lib/portal/people-posts";

// POST /session/accept-invitation: joins an organization by invitation and signs in (lib/portal/people-posts.ts).
export async function POST(request: Request): Promise<Response> {
  return acceptInvitationResponse(request);
}
