"use client";

import { useActionState } from "react";
import { Card } from "@/components/ui/card";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { fieldLabelClass, inlineSelectClass, inputClass } from "@/components/ui/field";
import { inviteMemberAction, type InviteState } from "@/lib/portal/members-actions";

const idle: InviteState = { status: "idle" };

interface Props {
  /** The roles the inviter may give (an organization's admin: all but owner; the console: every role). */
  roles: readonly string[];
  /** Every role with what it lets a person do (describeRole in lib/auth/roles.ts): each choice says it. */
  described: readonly { role: string; can: string }[];
  /** The console's: invite into this account (a reseller's customer, or any for staff), not the own organization. */
  account?: { id: string; name: string };
}

/**
 * Invite by email, into the signed-in person's organization (the Members page) or into an account from the console.
 * The action answers in place: on success React resets the form (the email field empties) and the page comes back
 * with the pending invitation listed; a refusal keeps the email typed, to fix and send again.
 */
export function InviteForm({ roles, described, account }: Props) {
  const [state, invite, pending] = useActionState(inviteMemberAction, idle);
  const can = new Map(described.map((d) => [d.role, d.can]));
  return (
    <>
      {state.status === "sent" ? (
        <p role="status" className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
          Invitation sent to {state.email}. It is listed under pending invitations until they accept.
        </p>
      ) : null}
      {state.status === "refused" ? <ErrorState>{state.message}</ErrorState> : null}
      <Card
        as="form"
        action={invite}
        className="flex flex-wrap items-end gap-3"
        aria-label={account ? `Invite a person to ${account.name}` : "Invite a member"}
      >
        {account ? <input type="hidden" name="account" value={account.id} /> : null}
        <div className="min-w-64 flex-1">
          <label htmlFor="invite-email" className={fieldLabelClass}>
            Email
          </label>
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            // After a refusal the form's reset comes back to what was typed.
            defaultValue={state.status === "refused" ? state.email : ""}
            className={inputClass()}
          />
        </div>
        {/* Each choice says what the role can do: long, so the choice takes a line of its own. */}
        <div className="w-full">
          <label htmlFor="invite-role" className={fieldLabelClass}>
            Role
          </label>
          <select id="invite-role" name="role" defaultValue="viewer" className={`${inlineSelectClass} w-full`}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}: {can.get(r) ?? r}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" variant="primary" disabled={pending}>
          Invite
        </Button>
      </Card>
    </>
  );
}
