import Link from "next/link";
import { Suspense } from "react";
import type { PortalSession } from "@/lib/portal/session";
import { NavLinks } from "./nav-links";
import { TimeZoneSwitch } from "./time-zone";

/**
 * Who the session is, in the header's badge: the platform's staff, a reseller's people (an account with customers,
 * or whose roles provision them) or a customer's. A reseller's cost view is its own margins, never the operator's.
 */
export function sessionLabel(
  session: Pick<PortalSession, "billingGroupId" | "role" | "scopes" | "reachesSeveral" | "canReadCost">,
): string {
  const reseller =
    session.billingGroupId !== null && (session.reachesSeveral || session.scopes.includes("accounts:write"));
  const reach = session.billingGroupId === null ? "Platform" : reseller ? "Reseller" : "Customer";
  const who = session.role ? `${reach} ${session.role}` : reach;
  if (!session.canReadCost) return who;
  return reseller ? `${who} · your margins` : `${who} · cost view`;
}

export function PortalHeader({ session }: { session: PortalSession }) {
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-2 focus:rounded focus:bg-white focus:px-3 focus:py-1"
      >
        Skip to content
      </a>
      <div className="mx-auto flex min-h-14 max-w-screen-2xl flex-wrap items-center gap-x-3 gap-y-1 px-4 py-1.5 sm:gap-x-4 sm:px-6">
        {/* Named by its text (the mark is decoration), so what a voice user reads out is what the link answers to. */}
        <Link href="/" className="flex shrink-0 items-center gap-2 font-semibold tracking-tight text-slate-900">
          <span aria-hidden className="grid size-7 place-items-center rounded-lg bg-brand-600 text-sm text-white">
            C
          </span>
          <span className="sr-only sm:not-sr-only">Callbook</span>
        </Link>
        {/* The links read the URL's account in the browser; without it (while it streams) they still work. */}
        <Suspense fallback={null}>
          <NavLinks
            scopes={session.scopes}
            members={session.canManageMembers}
            security={session.person}
            platform={session.billingGroupId === null}
          />
        </Suspense>
        <div className="ml-auto flex items-center gap-2 sm:gap-3">
          <TimeZoneSwitch />
          <span
            className="hidden rounded-full bg-slate-100 px-2.5 py-1 text-xs font-medium text-slate-600 md:inline"
            title={session.scopes.join(", ")}
          >
            {sessionLabel(session)}
          </span>
          <form action="/session/sign-out" method="post">
            <button
              type="submit"
              className="rounded-md px-2.5 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900"
            >
              Sign out
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}
