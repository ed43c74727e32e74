import "server-only";
import { notFound } from "next/navigation";
import type { Principal } from "@/lib/auth/principal";
import { mayOpen, type PortalPage } from "./pages";
import { requirePortalSession, type PortalSession } from "./session";
import { returnPathOf } from "./sign-in";

export type PageSearchParams = Record<string, string | string[] | undefined>;

/**
 * A portal page's guard, from its declaration (pages.ts): no session -> sign-in, back to this page and its query
 * afterwards; a session without the page's scope -> 404 (the navigation does not link it either). Returns the
 * session and the page's query.
 */
export async function requirePortalPage(
  page: PortalPage,
  searchParams: Promise<PageSearchParams>,
): Promise<{ session: PortalSession; principal: Principal; params: PageSearchParams }> {
  const params = await searchParams;
  const { session, principal } = await requirePortalSession(returnPathOf(page.path, params));
  if (!mayOpen(page, session.scopes)) notFound();
  return { session, principal, params };
}
