import { getDb } from "@/lib/db/client";
import { endPortalSessionOf } from "@/lib/portal/sign-out";
import { isSecureRequest, sessionSetCookie } from "@/lib/portal/session-cookie";
import {
  isSameOriginPost,
  openPortalSession,
  safeReturnPath,
  signInFormSchema,
  throttledSignIn,
} from "@/lib/portal/sign-in";

// POST /session: the sign-in form. Answers 303 so the browser lands on a GET page either way.
export async function POST(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const rawNext = form?.get("next");
  const parsed = signInFormSchema.safeParse({
    key: form?.get("key") ?? "",
    next: typeof rawNext === "string" ? rawNext : undefined,
  });
  const next = safeReturnPath(parsed.success ? parsed.data.next : undefined);
  const back = (error: string) =>
    redirect(`/sign-in?error=${error}${next !== "/" ? `&next=${encodeURIComponent(next)}` : ""}`);
  if (!isSameOriginPost(request)) return back("origin");
  if (!parsed.success) return back("missing");
  const db = await getDb();
  const opened = await openPortalSession(db, parsed.data.key, request.headers);
  if (!opened.ok && opened.reason === "throttled") return throttledSignIn(request, opened.retryAfterSeconds);
  if (!opened.ok) return back(opened.reason === "no_read_scope" ? "scope" : "invalid");
  // A session this browser held before is ended, not just replaced.
  await endPortalSessionOf(db, request);
  return redirect(next, sessionSetCookie(opened.session.token, isSecureRequest(request)));
}

function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
