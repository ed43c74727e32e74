import { getDb } from "@/lib/db/client";
import { isSecureRequest, sessionSetCookie } from "@/lib/portal/session-cookie";
import { isSameOriginPost, openPortalSession, safeReturnPath, signInFormSchema } from "@/lib/portal/sign-in";

// POST /session: the sign-in form. Answers 303 so the browser lands on a GET page either way.
export async function POST(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const parsed = signInFormSchema.safeParse({ key: form?.get("key") ?? "", next: form?.get("next") ?? undefined });
  const next = safeReturnPath(parsed.success ? parsed.data.next : undefined);
  const back = (error: string) => redirect(`/sign-in?error=${error}${next !== "/" ? `&next=${encodeURIComponent(next)}` : ""}`);
  if (!isSameOriginPost(request)) return back("origin");
  if (!parsed.success) return back("missing");
  const token = await openPortalSession(await getDb(), parsed.data.key);
  if (!token) return back("invalid");
  return redirect(next, sessionSetCookie(token, isSecureRequest(request)));
}

function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
