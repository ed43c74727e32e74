import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getPortalPrincipal } from "@/lib/portal/session";
import { safeReturnPath } from "@/lib/portal/sign-in";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";

export const metadata: Metadata = { title: "Sign in" };

const MESSAGES: Record<string, string> = {
  invalid: "That key is unknown or has been revoked. Check it and try again.",
  scope: "This key can only send call records (cdrs:write); sign in with a key that can read calls.",
  missing: "Paste your API key to sign in.",
  expired: "Your session has ended. Sign in again to continue.",
  origin: "The sign-in request came from another site and was refused.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeReturnPath(typeof params.next === "string" ? params.next : undefined);
  const error = typeof params.error === "string" ? MESSAGES[params.error] : undefined;
  if (!error && (await getPortalPrincipal())) redirect(next);

  return (
    <main className="grid min-h-screen place-items-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 flex items-center gap-2">
          <span aria-hidden className="grid size-9 place-items-center rounded-xl bg-brand-600 font-semibold text-white">
            C
          </span>
          <span className="text-xl font-semibold tracking-tight">Callbook</span>
        </div>
        <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
          <h1 className="text-lg font-semibold">Sign in to your account</h1>
          <p className="mt-1 text-sm text-slate-600">
            Paste the API key you were given. The portal shows what that key may see.
          </p>
          {params.signedOut ? (
            <p role="status" className="mt-4 rounded-lg bg-slate-100 px-3 py-2 text-sm text-slate-700">
              You have signed out.
            </p>
          ) : null}
          {error ? <ErrorState className="mt-4">{error}</ErrorState> : null}
          <form action="/session" method="post" className="mt-6 space-y-4">
            <input type="hidden" name="next" value={next} />
            <div>
              <label htmlFor="key" className="block text-sm font-medium text-slate-700">
                API key
              </label>
              <input
                id="key"
                name="key"
                type="password"
                required
                autoFocus
                autoComplete="off"
                spellCheck={false}
                placeholder="ck_…"
                aria-describedby="key-help"
                className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm shadow-xs focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100"
              />
              <p id="key-help" className="mt-1 text-xs text-slate-500">
                Only a signed session cookie is kept in this browser, never the key itself.
              </p>
            </div>
            <button type="submit" className={primaryButtonClass({ block: true })}>
              Sign in
            </button>
          </form>
        </div>
      </div>
    </main>
  );
}
