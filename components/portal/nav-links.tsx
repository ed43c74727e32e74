"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { navPages } from "@/lib/portal/pages";

const ACCOUNT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The main navigation: the pages declared in lib/portal/pages.ts that this session may open (the same declaration
 * guards each page). The account chosen on one page (`?account=`, platform sessions) goes along to the
 * others, so the dashboard, calls, rates and reports all show the same account until another is picked.
 */
export function NavLinks({
  scopes,
  members = false,
  security = false,
}: {
  scopes: readonly string[];
  members?: boolean;
  /** A signed-in person: their Security page (second factor, passkeys). */
  security?: boolean;
}) {
  const pathname = usePathname();
  const account = useSearchParams().get("account");
  const carried = account && ACCOUNT.test(account) ? `?account=${encodeURIComponent(account)}` : "";
  return (
    <nav aria-label="Main" className="flex flex-wrap items-center gap-1">
      {navPages({ scopes, canManageMembers: members, person: security }).map((link) => {
        const active = link.path === "/" ? pathname === "/" : pathname.startsWith(link.path);
        return (
          <Link
            key={link.path}
            href={`${link.path}${carried}`}
            aria-current={active ? "page" : undefined}
            className={`rounded-md px-2 py-1.5 text-sm font-medium sm:px-2.5 ${active ? "bg-brand-50 text-brand-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"}`}
          >
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
