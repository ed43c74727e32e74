import { Card } from "@/components/ui/card";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { inlineSelectClass } from "@/components/ui/field";
import type { MemberRow, PendingInvitation } from "@/lib/people/members";
import { changeRoleAction, removeMemberAction } from "@/lib/portal/members-actions";
import { InviteForm } from "./invite-form";

const DONE: Record<string, string> = {
  role: "Role changed. The member's sessions have ended: they sign in again with the new role.",
  removed: "Member removed. Their next page or request is refused.",
};

interface Props {
  /** null: the signed-in role may not see the members. */
  listed: { members: MemberRow[]; invitations: PendingInvitation[] } | null;
  /** The roles the signed-in member may give (lib/people/members.ts assignableRoles): an admin is not offered owner. */
  roles: readonly string[];
  /** Every role with what it lets a person do (describeRole in lib/auth/roles.ts), in the roles' order. */
  described: readonly { role: string; can: string }[];
  me: string | undefined;
  notice: { done?: string; error?: string; message?: string; wait?: string };
}

function errorText(notice: Props["notice"]): string | null {
  if (!notice.error) return null;
  if (notice.error === "throttled")
    return `Too many invitations: wait ${notice.wait ?? "a few"} seconds and try again.`;
  if (notice.error === "invalid") return "Enter an email address and pick a role.";
  return notice.message ?? "That change was refused.";
}

/** The Members page: who belongs to the organization with which role, and (owner, admin) invite, change, remove. */
export function MembersPanel({ listed, roles, described, me, notice }: Props) {
  if (!listed) {
    return (
      <Card role="note" className="text-sm text-slate-600">
        Your role cannot see this organization&apos;s members. Ask an owner or admin.
      </Card>
    );
  }
  const error = errorText(notice);
  // The invite form says what each role can do (from its scopes, lib/auth/roles.ts); a member's row names the role,
  // described in the list below the table.
  const roleOptions = roles.map((r) => (
    <option key={r} value={r}>
      {r}
    </option>
  ));
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Members</h1>
        <p className="text-sm text-slate-600">People of your organization and what their role lets them see and do.</p>
      </div>
      {notice.done && DONE[notice.done] ? (
        <p role="status" className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
          {DONE[notice.done]}
        </p>
      ) : null}
      {error ? <ErrorState>{error}</ErrorState> : null}
      <InviteForm roles={roles} described={described} />
      <Card padding="none">
        <table className="w-full text-sm">
          <caption className="sr-only">Members</caption>
          <thead className="border-b border-slate-200 text-left text-xs text-slate-500">
            <tr>
              <th className="px-4 py-2 font-medium">Name</th>
              <th className="px-4 py-2 font-medium">Email</th>
              <th className="px-4 py-2 font-medium">Role</th>
              <th className="px-4 py-2 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {listed.members.map((m) => (
              <tr key={m.memberId} data-member-email={m.email} className="border-b border-slate-100 last:border-0">
                <td className="px-4 py-2">{m.name}</td>
                <td className="px-4 py-2">{m.email}</td>
                <td className="px-4 py-2">
                  {!roles.includes(m.role) ? (
                    // A role this member may not give (an owner, seen by an admin): not theirs to change either.
                    <span>{m.role}</span>
                  ) : (
                    <form action={changeRoleAction} className="flex items-center gap-2">
                      <input type="hidden" name="memberId" value={m.memberId} />
                      <select
                        name="role"
                        defaultValue={m.role}
                        aria-label={`Role of ${m.email}`}
                        className={inlineSelectClass}
                        disabled={m.userId === me}
                      >
                        {roleOptions}
                      </select>
                      {m.userId === me ? (
                        <span className="text-xs text-slate-500">you</span>
                      ) : (
                        <Button type="submit">Change role</Button>
                      )}
                    </form>
                  )}
                </td>
                <td className="px-4 py-2 text-right">
                  {m.userId === me || !roles.includes(m.role) ? null : (
                    <form action={removeMemberAction}>
                      <input type="hidden" name="memberId" value={m.memberId} />
                      <Button type="submit" aria-label={`Remove ${m.email}`}>
                        Remove
                      </Button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      <Card aria-labelledby="roles-title" data-testid="role-abilities">
        <h2 id="roles-title" className="text-sm font-semibold">
          What each role can do
        </h2>
        <dl className="mt-2 flex flex-col gap-1 text-sm">
          {described.map((d) => (
            <div key={d.role} className="gap-x-4 sm:grid sm:grid-cols-[6rem_1fr]" data-role={d.role}>
              <dt className="font-medium text-slate-900">{d.role}</dt>
              <dd className="text-slate-700">{d.can}</dd>
            </div>
          ))}
        </dl>
      </Card>
      <PendingInvitations invitations={listed.invitations} />
    </div>
  );
}

/** An organization's pending invitations (its Members page, and an account's page in the console); none: nothing. */
export function PendingInvitations({ invitations }: { invitations: readonly PendingInvitation[] }) {
  if (invitations.length === 0) return null;
  return (
    <Card aria-labelledby="pending-invitations">
      <h2 id="pending-invitations" className="text-sm font-semibold">
        Pending invitations
      </h2>
      <ul className="mt-2 text-sm text-slate-700">
        {invitations.map((i) => (
          <li key={i.id}>
            {i.email} as {i.role}, until {i.expiresAt.slice(0, 10)}
          </li>
        ))}
      </ul>
    </Card>
  );
}
