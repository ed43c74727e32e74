import { signInResponse } from "@/lib/portal/sign-in-post";

// POST /session: the sign-in form (lib/portal/sign-in-post.ts). Answers 303 so the browser lands on a GET page.
export async function POST(request: Request): Promise<Response> {
  return signInResponse(request);
}
