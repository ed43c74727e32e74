import { Card } from "@/components/ui/card";
import { InviteForm } from "@/components/people/invite-form";
import { PendingInvitations } from "@/components/people/members-panel";
import type { MemberRow, PendingInvitation } from "@/lib/people/members";

interface Props {
  account: { id: string; name: string };
  people: { members: MemberRow[]; invitations: PendingInvitation[] };
  /** Every role with what it lets a person do (the page reads describeRole: lib/auth/roles.ts is server-side). */
  described: { role: string; can: string }[];
}

/**
 * An account's people on its console page (a reseller's customer, any account for staff): who belongs with which role,
 * the pending invitations, and the Members page's invite form aimed at this account, offering every role (its first
 * person is usually its owner). Changing or removing them stays the account's own owners' (its Members page).
 */
export function AccountPeople({ account, people, described }: Props) {
  return (
    <section aria-labelledby="account-people" className="flex flex-col gap-2" data-testid="account-people">
      <h2 id="account-people" className="text-lg font-semibold">
        People of this account
      </h2>
      {people.members.length === 0 ? (
        <p className="text-sm text-slate-600">Nobody yet: invite its first person, usually as owner.</p>
      ) : (
        <Card padding="none">
          <table className="w-full text-sm">
            <caption className="sr-only">People of {account.name}</caption>
            <thead className="border-b border-slate-200 text-left text-xs text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Email</th>
                <th className="px-4 py-2 font-medium">Role</th>
              </tr>
            </thead>
            <tbody>
              {people.members.map((m) => (
                <tr key={m.memberId} className="border-b border-slate-100 last:border-0">
                  <td className="px-4 py-2">{m.name}</td>
                  <td className="px-4 py-2">{m.email}</td>
                  <td className="px-4 py-2">{m.role}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
      <PendingInvitations invitations={people.invitations} />
      <InviteForm roles={described.map((d) => d.role)} described={described} account={account} />
    </section>
  );
}
