"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";

const LINKS: readonly { href: string; label: string; scope?: string }[] = [
  { href: "/", label: "Dashboard" },
  { href: "/calls", label: "Calls" },
  { href: "/rates", label: "Rates" },
  { href: "/reports", label: "Reports" },
  { href: "/invoices", label: "Invoices" },
  // Shown only to sessions that may use them (the pages answer 404 to the others).
  { href: "/api-keys", label: "API keys", scope: "keys:read" },
  { href: "/audit", label: "Audit log", scope: "audit:read" },
  // The operator console: the platform's owners and admins (platform sessions alone hold accounts:write).
  { href: "/console/accounts", label: "Accounts", scope: "accounts:write" },
  { href: "/alerts", label: "Alerts", scope: "alerts:write" },
  { href: "/rate-decks", label: "Rate decks", scope: "rates:write" },
];

const ACCOUNT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The main navigation. The account chosen on one page (`?account=`, platform sessions) goes along to the
 * others, so the dashboard, calls, rates and reports all show the same account until another is picked. Members
 * only for the roles that manage them.
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
      {[
        ...LINKS,
        ...(members ? [{ href: "/members", label: "Members" }] : []),
        ...(security ? [{ href: "/security", label: "Security" }] : []),
      ]
        .filter((link) => !("scope" in link) || link.scope === undefined || scopes.includes(link.scope))
        .map((link) => {
          const active = link.href === "/" ? pathname === "/" : pathname.startsWith(link.href);
          return (
            <Link
              key={link.href}
              href={`${link.href}${carried}`}
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
