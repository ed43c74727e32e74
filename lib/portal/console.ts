import "server-only";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { notFound } from "next/navigation";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { getBillingGroup } from "@/lib/billing/groups";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import { getDb } from "@/lib/db/client";
import { requirePortalSession, type PortalSession } from "./session";
import { ACCOUNT_CURRENCIES } from "@/lib/money/iso-4217";

/** Whether a session sees the operator console: platform staff holding accounts:write (the platform's owners, admins). */
export function isConsoleSession(session: Pick<PortalSession, "billingGroupId" | "scopes">): boolean {
  return isPlatform(reachOf(session)) && session.scopes.includes("accounts:write");
}

/** The console's pages: the signed-in staff session, else sign-in (no session) or 404 (anyone else). */
export async function requireConsoleSession(returnTo: string): Promise<PortalSession> {
  const { session } = await requirePortalSession(returnTo);
  if (!isConsoleSession(session)) notFound();
  return session;
}

/** One account as the console's account page shows it; 404 for an unknown or malformed id. */
export async function consoleAccount(id: string): Promise<AccountDetail> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) notFound();
  const group = await getBillingGroup(await getDb(), id);
  if (!group) notFound();
  return toAccountDetail(group);
}

/** The currencies a new account may take, with their English names: computed here so server and browser agree. */
export function currencyChoices(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames("en", { type: "currency" });
  return ACCOUNT_CURRENCIES.map((code) => ({ code, name: names.of(code) ?? code }));
}
