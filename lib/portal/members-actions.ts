"use server";

import { refresh } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { clientAddress } from "@/lib/auth/request-origin";
import { roleSchema } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { inviteToAccount } from "@/lib/people/invite-to-account";
import { changeMemberRole, inviteMember, removeMember, type MemberChange } from "@/lib/people/members";
import { getPortalPrincipal } from "./session";

// The Members page's forms (server actions: Next checks that the post comes from this site's page). Each acts as
// the signed-in person, whose role must manage members (lib/people/members.ts), and lands back on the page with
// what happened.

function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value.slice(0, 320) : "";
}

function land(result: MemberChange, done: string): never {
  if (result.ok) redirect(`/members?done=${done}`);
  if (result.reason === "throttled") redirect(`/members?error=throttled&wait=${result.retryAfterSeconds}`);
  redirect(`/members?error=${result.reason}&message=${encodeURIComponent(result.message)}`);
}

async function actor() {
  const principal = await getPortalPrincipal();
  if (!principal) redirect("/sign-in?next=%2Fmembers");
  return principal;
}

/** What the invite form shows after a post: the invitation sent, or why not (the email kept for a retry). */
export type InviteState =
  | { status: "idle" }
  | { status: "sent"; email: string; role: string }
  | { status: "refused"; email: string; message: string };

/**
 * The invite form's action (useActionState): it answers in place instead of redirecting, so the form clears on
 * success and the page, rendered anew in the same answer (refresh), lists the pending invitation.
 */
export async function inviteMemberAction(_: InviteState, form: FormData): Promise<InviteState> {
  const principal = await actor();
  const role = roleSchema.safeParse(field(form, "role"));
  const email = field(form, "email").trim();
  if (!role.success || !email.includes("@"))
    return { status: "refused", email, message: "Enter an email address and pick a role." };
  // From the console's account page: into that account (inviteToAccount decides the reach); else the own organization.
  const account = field(form, "account");
  const input = { email, role: role.data };
  let result: MemberChange;
  try {
    result = account
      ? await inviteToAccount(await getDb(), principal, { ...input, billingGroupId: account }, await headers())
      : await inviteMember(await getDb(), principal, input, await headers());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: "refused", email, message: error.detail };
  }
  if (!result.ok)
    return {
      status: "refused",
      email,
      message:
        result.reason === "throttled"
          ? `Too many invitations: wait ${result.retryAfterSeconds} seconds and try again.`
          : result.message,
    };
  refresh();
  return { status: "sent", email, role: role.data };
}

export async function changeRoleAction(form: FormData): Promise<void> {
  const principal = await actor();
  const role = roleSchema.safeParse(field(form, "role"));
  if (!role.success) redirect("/members?error=invalid");
  land(
    await changeMemberRole(await getDb(), principal, { memberId: field(form, "memberId"), role: role.data }),
    "role",
  );
}

export async function removeMemberAction(form: FormData): Promise<void> {
  const principal = await actor();
  const address = clientAddress(await headers());
  land(await removeMember(await getDb(), principal, { memberId: field(form, "memberId") }, address), "removed");
}
