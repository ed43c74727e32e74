import { secondFactorResponse } from "@/lib/portal/second-factor-post";

// POST /session/second-factor: the sign-in's code step (lib/portal/second-factor-post.ts). Answers 303.
export async function POST(request: Request): Promise<Response> {
  return secondFactorResponse(request);
}
