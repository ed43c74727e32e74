import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mayOpen, navPages, pathOf, PORTAL_PAGES } from "./pages";

const PORTAL_APP = path.join(process.cwd(), "app/(portal)");

/** Every page file under app/(portal), by the URL path it serves. */
function pageFiles(dir = PORTAL_APP, url = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [k, v] of pageFiles(full, `${url}/${entry.name}`)) out.set(k, v);
    else if (entry.name === "page.tsx") out.set(url || "/", full);
  }
  return out;
}

const session = (
  scopes: string[],
  extra: { canManageMembers?: boolean; person?: boolean; platform?: boolean } = {},
) => ({
  scopes,
  canManageMembers: extra.canManageMembers ?? false,
  person: extra.person ?? false,
  platform: extra.platform ?? false,
});

describe("portal pages", () => {
  it("links a scoped page only for sessions holding its scope, in the declared order", () => {
    expect(navPages(session(["calls:read"])).map((p) => p.path)).toEqual([
      "/",
      "/calls",
      "/rates",
      "/reports",
      "/quality",
      "/limits",
      "/invoices",
    ]);
    expect(
      navPages(
        session(["calls:read", "keys:read", "audit:read", "accounts:write", "alerts:write", "rates:write"], {
          canManageMembers: true,
          person: true,
        }),
      ).map((p) => p.label),
    ).toEqual([
      "Dashboard",
      "Calls",
      "Rates",
      "Reports",
      "Quality",
      "Limits",
      "Invoices",
      "API keys",
      "Audit log",
      "Accounts",
      "Alerts",
      "Rate decks",
      "Members",
      "Security",
    ]);
  });

  it("declares only pages that exist, and each guarded page is guarded by its own declaration", () => {
    const files = pageFiles();
    for (const [key, page] of Object.entries(PORTAL_PAGES)) {
      const file = files.get(page.path);
      expect(file, `${key}: ${page.path} has no page.tsx`).toBeDefined();
      expect(existsSync(file!)).toBe(true);
    }
    // A page that uses the guard names the declaration of its own path: its scope is the one its nav link checks.
    for (const [url, file] of files) {
      const used = /requirePortalPage\(PORTAL_PAGES\.(\w+)/.exec(readFileSync(file, "utf8"))?.[1];
      if (used === undefined) continue;
      expect(PORTAL_PAGES[used as keyof typeof PORTAL_PAGES]?.path, file).toBe(url);
    }
  });

  it("opens the sell-deck pages to a reseller's rates:write, the suppliers' only to the platform's", () => {
    const reseller = { scopes: ["calls:read", "rates:write"], platform: false };
    const platform = { scopes: ["calls:read", "rates:write"], platform: true };
    expect(mayOpen(PORTAL_PAGES.rateDecks, reseller)).toBe(true);
    expect(mayOpen(PORTAL_PAGES.rateDeckUpload, reseller)).toBe(true);
    expect(mayOpen(PORTAL_PAGES.supplierDecks, reseller)).toBe(false);
    expect(mayOpen(PORTAL_PAGES.supplierDeckUpload, reseller)).toBe(false);
    expect(mayOpen(PORTAL_PAGES.supplierDecks, platform)).toBe(true);
    expect(mayOpen(PORTAL_PAGES.supplierDeckUpload, platform)).toBe(true);
    expect(mayOpen(PORTAL_PAGES.rateDecks, { scopes: ["calls:read"], platform: true })).toBe(false);
  });

  it("fills a page's [id] segment (an invoice's page, linked from the list and the mail), escaped", () => {
    expect(pathOf(PORTAL_PAGES.invoice, "inv_0abc")).toBe("/invoices/inv_0abc");
    expect(pathOf(PORTAL_PAGES.invoice, "a/b?c")).toBe("/invoices/a%2Fb%3Fc");
    expect(PORTAL_PAGES.invoice).not.toHaveProperty("nav");
  });
});
