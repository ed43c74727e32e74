"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { navPages } from "@/lib/portal/pages";

const ACCOUNT = /^[A-Za-z0-9_-]{1,64}$/;
/** The one main navigation's links, which the Menu button controls. */
const PANEL_ID = "main-nav-links";
/** More links than fit beside the logo and the session's controls at 1440 px: the links get their own row. */
const OWN_ROW_AFTER = 8;

/**
 * The main navigation: the pages declared in lib/portal/pages.ts that this session may open (the same declaration
 * guards each page). The account chosen on one page (`?account=`, platform sessions) goes along to the
 * others, so the dashboard, calls, rates and reports all show the same account until another is picked.
 *
 * Below `lg` the links fold behind a Menu button (a disclosure): a dozen links would wrap the header to three or
 * four rows on a phone. The panel closes on navigation, on Escape and on a click outside.
 */
export function NavLinks({
  scopes,
  members = false,
  security = false,
  platform = false,
}: {
  scopes: readonly string[];
  members?: boolean;
  /** A signed-in person: their Security page (second factor, passkeys). */
  security?: boolean;
  /** A platform session (not bound to an account): the platform-only pages. */
  platform?: boolean;
}) {
  const pathname = usePathname();
  const account = useSearchParams().get("account");
  const carried = account && ACCOUNT.test(account) ? `?account=${encodeURIComponent(account)}` : "";
  const navRef = useRef<HTMLElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  // Open on the page where it was opened: navigating elsewhere closes it without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;

  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (!navRef.current?.contains(e.target as Node)) setOpenOn(null);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || !open) return;
    setOpenOn(null);
    buttonRef.current?.focus();
  };

  const pages = navPages({ scopes, canManageMembers: members, person: security, platform });
  // Staff see a dozen links or more: on wide screens they take a row of their own below the logo and the session's
  // controls, in one line (scrolling sideways if a narrow desktop cannot hold them) rather than wrapping wherever the
  // width runs out. A customer's few links stay beside the logo.
  const ownRow = pages.length > OWN_ROW_AFTER;

  return (
    <nav
      ref={navRef}
      aria-label="Main"
      className={`flex items-center ${ownRow ? "lg:order-last lg:w-full" : ""}`}
      onKeyDown={onKeyDown}
    >
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => setOpenOn(open ? null : pathname)}
        className="inline-flex min-h-9 items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 text-sm font-medium text-slate-700 hover:bg-slate-100 lg:hidden"
        data-testid="nav-menu-button"
      >
        <svg aria-hidden viewBox="0 0 16 16" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.75">
          {open ? <path d="M4 4l8 8M12 4l-8 8" /> : <path d="M2.5 4h11M2.5 8h11M2.5 12h11" />}
        </svg>
        Menu
      </button>
      <ul
        id={PANEL_ID}
        className={`${open ? "flex" : "hidden"} absolute inset-x-0 top-full flex-col gap-0.5 border-b border-slate-200 bg-white px-4 py-2 shadow-lg sm:px-6 lg:static lg:flex lg:flex-row ${ownRow ? "lg:flex-nowrap lg:overflow-x-auto" : "lg:flex-wrap"} lg:items-center lg:gap-1 lg:border-0 lg:bg-transparent lg:p-0 lg:shadow-none`}
        data-testid="nav-links"
      >
        {pages.map((link) => {
          const active = link.path === "/" ? pathname === "/" : pathname.startsWith(link.path);
          return (
            <li key={link.path}>
              <Link
                href={`${link.path}${carried}`}
                aria-current={active ? "page" : undefined}
                onClick={() => setOpenOn(null)}
                className={`block rounded-md px-3 py-2.5 text-sm font-medium lg:px-2.5 lg:py-1.5 ${active ? "bg-brand-50 text-brand-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"}`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
