// The portal's pages, declared once: the path, the label the navigation shows, and the scope without which the page
// answers 404 and the navigation leaves it out (requirePortalPage in page-guard.ts, NavLinks in components/portal).
// A page and its link read the same declaration, so they cannot disagree. Client-safe: pure data, no imports.

export interface PortalPage {
  path: string;
  label: string;
  /** The scope the session must hold: without it the page is a 404 and not in the navigation. */
  scope?: string;
  /**
   * Where the page is linked from the main navigation: `true` for every session that may open it, `"members"` for
   * the roles that manage members, `"person"` for a signed-in person (not a key's session); absent: not linked.
   */
  nav?: true | "members" | "person";
  /** The platform's sessions only (not bound to an account): the operator's costs, e.g. the suppliers' decks. */
  platform?: true;
}

/** Every declared page, in the navigation's order. */
export const PORTAL_PAGES = {
  dashboard: { path: "/", label: "Dashboard", nav: true },
  calls: { path: "/calls", label: "Calls", nav: true },
  rates: { path: "/rates", label: "Rates", nav: true },
  reports: { path: "/reports", label: "Reports", nav: true },
  quality: { path: "/quality", label: "Quality", scope: "calls:read", nav: true },
  // GET /v1/limits answers calls:read; the form to change a layer shows with limits:write.
  limits: { path: "/limits", label: "Limits", scope: "calls:read", nav: true },
  invoices: { path: "/invoices", label: "Invoices", nav: true },
  // One invoice or note, linked from the list and the invoice mail (pathOf fills its id).
  invoice: { path: "/invoices/[id]", label: "Invoice", scope: "invoices:read" },
  apiKeys: { path: "/api-keys", label: "API keys", scope: "keys:read", nav: true },
  audit: { path: "/audit", label: "Audit log", scope: "audit:read", nav: true },
  // The console: the platform's owners and admins, and a reseller's on its subtree (the sessions holding accounts:write);
  // its pages are guarded by requireConsoleSession (lib/portal/console.ts).
  consoleAccounts: { path: "/console/accounts", label: "Accounts", scope: "accounts:write", nav: true },
  alerts: { path: "/alerts", label: "Alerts", scope: "alerts:write", nav: true },
  // A reseller's owners and admins price their subtree here too (the API's reach); the suppliers' decks stay the
  // platform's.
  rateDecks: { path: "/rate-decks", label: "Rate decks", scope: "rates:write", nav: true },
  rateDeckUpload: { path: "/rate-decks/upload", label: "Upload a rate deck", scope: "rates:write" },
  supplierDecks: { path: "/rate-decks/suppliers", label: "Supplier decks", scope: "rates:write", platform: true },
  supplierDeckUpload: {
    path: "/rate-decks/suppliers/upload",
    label: "Upload a supplier deck",
    scope: "rates:write",
    platform: true,
  },
  members: { path: "/members", label: "Members", nav: "members" },
  security: { path: "/security", label: "Security", nav: "person" },
} as const satisfies Record<string, PortalPage>;

/** A page's URL path with its `[id]` segment filled: pathOf(PORTAL_PAGES.invoice, "inv_1") is "/invoices/inv_1". */
export function pathOf(page: PortalPage, id: string): string {
  return page.path.replace("[id]", encodeURIComponent(id));
}

/** What the navigation knows of the session (PortalSession's fields). */
export interface NavSession {
  scopes: readonly string[];
  /** The role may see and manage the organization's members. */
  canManageMembers: boolean;
  /** A signed-in person. */
  person: boolean;
  /** A platform session (not bound to an account). */
  platform: boolean;
}

/** Whether the session holds the page's scope (a page without one: every session), and is the platform's if it must be. */
export function mayOpen(page: PortalPage, session: { scopes: readonly string[]; platform: boolean }): boolean {
  return (page.scope === undefined || session.scopes.includes(page.scope)) && (!page.platform || session.platform);
}

/** The main navigation's pages for this session, in order. */
export function navPages(session: NavSession): PortalPage[] {
  return Object.values(PORTAL_PAGES as Record<string, PortalPage>).filter(
    (page) =>
      page.nav !== undefined &&
      (page.nav !== "members" || session.canManageMembers) &&
      (page.nav !== "person" || session.person) &&
      mayOpen(page, session),
  );
}
