import "server-only";
import { notFound } from "next/navigation";
import type { Principal } from "@/lib/auth/principal";
import { mayOpen, pathOf, type PortalPage } from "./pages";
import { requirePortalSession, type PortalSession } from "./session";
import { returnPathOf } from "./sign-in";

export type PageSearchParams = Record<string, string | string[] | undefined>;

/**
 * A portal page's guard, from its declaration (pages.ts): no session -> sign-in, back to this page and its query
 * afterwards; a session without the page's scope -> 404 (the navigation does not link it either). Returns the
 * session and the page's query. `id` fills the path of a page with an `[id]` segment (pathOf).
 */
export async function requirePortalPage(
  page: PortalPage,
  searchParams: Promise<PageSearchParams>,
  id?: string,
): Promise<{ session: PortalSession; principal: Principal; params: PageSearchParams }> {
  const params = await searchParams;
  const path = id === undefined ? page.path : pathOf(page, id);
  const { session, principal } = await requirePortalSession(returnPathOf(path, params));
  if (!mayOpen(page, { scopes: session.scopes, platform: session.billingGroupId === null })) notFound();
  return { session, principal, params };
}
