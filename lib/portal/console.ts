import "server-only";
import { sql } from "drizzle-orm";
import { isPlatform, provisions, reachOf, reaches, type Reach } from "@/lib/auth/reach";
import { notFound } from "next/navigation";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { getBillingDetails, type BillingDetails } from "@/lib/billing/billing-details";
import { getBillingGroup } from "@/lib/billing/groups";
import { headroomOf } from "@/lib/billing/tier-headroom";
import { microsToNumber } from "@/lib/money/micros";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import { getDb, queryRows } from "@/lib/db/client";
import { listMembers, type MemberRow, type PendingInvitation } from "@/lib/people/members";
import { requirePortalSession, type PortalSession } from "./session";
import { ACCOUNT_CURRENCIES } from "@/lib/money/iso-4217";

/**
 * Whether a session sees the console: one holding accounts:write. The platform's owners and admins (every account),
 * and a reseller's (its subtree: roles give the scope to a reseller's owners and admins only, docs/contract.md §14).
 * What each may change is the API's decision (requireProvisioningOf), not the console's.
 */
export function isConsoleSession(session: Pick<PortalSession, "scopes">): boolean {
  return session.scopes.includes("accounts:write");
}

/** A reseller's console (not the platform's): its own account and subtree, no operator-only controls. */
export function isResellerConsole(session: Pick<PortalSession, "billingGroupId">): boolean {
  return !isPlatform(reachOf(session));
}

/** The console's pages: the signed-in session, else sign-in (no session) or 404 (anyone without accounts:write). */
export async function requireConsoleSession(returnTo: string): Promise<PortalSession> {
  const { session } = await requirePortalSession(returnTo);
  if (!isConsoleSession(session)) notFound();
  return session;
}

/** The reach the console's pages read with (the principal's: a reseller's subtree comes with it). */
export async function requireConsoleReach(returnTo: string): Promise<{ session: PortalSession; reach: Reach }> {
  const { session, principal } = await requirePortalSession(returnTo);
  if (!isConsoleSession(session)) notFound();
  return { session, reach: reachOf(principal) };
}

/**
 * One account as the console's account page shows it, and whether the session may change it (the same test as the
 * API's, `provisions`: a reseller's own account is read-only to it). 404 for an unknown or malformed id, or one
 * outside the session's reach (as absent).
 */
export async function consoleAccount(
  reach: Reach,
  id: string,
): Promise<{ account: AccountDetail; provisionable: boolean }> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id) || !reaches(reach, id)) notFound();
  const group = await getBillingGroup(await getDb(), id);
  if (!group) notFound();
  const account = toAccountDetail(group);
  // Outside its reach, a bound caller's parent is not named (docs/contract.md §21).
  if (!isPlatform(reach) && id === reach.own) account.parentId = null;
  return { account, provisionable: provisions(reach, id) };
}

/**
 * The customer a reseller's limits or alerts page works on (`?account=`, from its console's account page): an account
 * it provisions (requireProvisioningOf's rule), else null and the page shows its own account as before. The platform
 * picks from its switcher instead, so this is null for it.
 */
export function providedAccount(reach: Reach, account: unknown): string | null {
  if (isPlatform(reach) || typeof account !== "string") return null;
  return provisions(reach, account) ? account : null;
}

/**
 * The people of an account the session provisions (its console page's People section): its organization's members
 * and pending invitations; none yet when nobody was ever added (the organization is made with the first invitation).
 */
export async function accountPeople(id: string): Promise<{ members: MemberRow[]; invitations: PendingInvitation[] }> {
  const db = await getDb();
  const [organization] = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM organizations WHERE billing_group_id = ${id}`,
  );
  return organization ? listMembers(db, organization.id) : { members: [], invitations: [] };
}

/** A reseller's own billing details (its console's own-account page); null for the platform (OPERATOR_NAME's). */
export async function ownBillingDetails(reach: Reach): Promise<BillingDetails | null> {
  return isPlatform(reach) ? null : getBillingDetails(await getDb(), reach.own);
}

/**
 * The reseller's own account (the one its top-ups draw on), with what it may still move: its headroom (balance plus
 * credit less the holds of calls in flight in its subtree), the figure the API checks a top-up against.
 */
export async function ownConsoleAccount(reach: Reach): Promise<(AccountDetail & { available: number }) | null> {
  if (isPlatform(reach)) return null;
  const db = await getDb();
  const group = await getBillingGroup(db, reach.own);
  if (!group) return null;
  const available = microsToNumber((await headroomOf(db, group.id)) ?? 0n);
  return { ...toAccountDetail(group), parentId: null, available };
}

/**
 * Where a reseller may put a new customer: its own account, or a descendant that has customers of its own (a
 * sub-reseller). The API decides the same (parentId within the subtree); this is the form's choice.
 */
export async function parentChoices(reach: Reach): Promise<{ id: string; name: string }[]> {
  if (isPlatform(reach)) return [];
  const ids = sql.join(
    reach.groupIds.map((g) => sql`${g}`),
    sql`, `,
  );
  const rows = await queryRows<{ id: string; name: string }>(
    await getDb(),
    sql`SELECT g.id, g.name FROM billing_groups g
        WHERE g.id IN (${ids})
          AND (g.id = ${reach.own} OR EXISTS (SELECT 1 FROM billing_groups c WHERE c.parent_id = g.id))
        ORDER BY g.id = ${reach.own} DESC, lower(g.name), g.id`,
  );
  return rows;
}

/** The currencies a new account may take, with their English names: computed here so server and browser agree. */
export function currencyChoices(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames("en", { type: "currency" });
  return ACCOUNT_CURRENCIES.map((code) => ({ code, name: names.of(code) ?? code }));
}
