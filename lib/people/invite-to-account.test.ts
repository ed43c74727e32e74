import { sql } from "drizzle-orm";
import { afterEach, beforeAll, expect, it, vi } from "vitest";
import { findSessionPrincipal } from "@/lib/auth/find-key";
import { principalCacheFor, type PrincipalCache } from "@/lib/auth/principal-cache";
import { verifySessionToken } from "@/lib/auth/session-token";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { drainMailOutbox } from "@/lib/mail/outbox";
import type { MailMessage } from "@/lib/mail/send-mail";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { acceptInvitation, findInvitation } from "./accept-invitation";
import { addPerson } from "./add-person";
import { inviteToAccount } from "./invite-to-account";
import { listMembers } from "./members";
import { organizationOfGroup } from "./organizations";
import { signInPerson } from "./sign-in";

process.env.SESSION_SECRET ??= "invite-to-account-test-secret";

// A reseller (and the platform's staff) invite people into a customer's organization from the console (issue 32
// item 5): reach by requireProvisioningOf, the mail in the reseller's name with a link from configuration.

// A forged Host: it must never reach the mailed link.
const headers = new Headers({ host: "evil.example", "x-forwarded-host": "evil.example", "user-agent": "vitest" });
const PASSWORD = "correct horse battery";
let serial = 0;
const email = (who: string) => `${who}-${++serial}@invite.test`;

describeOnEngines("inviting into a customer's account", (handle) => {
  let db: Db;
  let cache: PrincipalCache;
  let tree: { r1: string; c1: string; r2: string; c2: string };
  beforeAll(async () => {
    db = handle().db;
    cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    const r1 = (await createBillingGroup(db, { name: "North Resale", currency: "USD" })).id;
    const c1 = (await createBillingGroup(db, { name: "North Customer", parentId: r1 })).id;
    const r2 = (await createBillingGroup(db, { name: "South Resale", currency: "USD" })).id;
    const c2 = (await createBillingGroup(db, { name: "South Customer", parentId: r2 })).id;
    await db.execute(sql`UPDATE billing_groups SET billing_name = 'North Resale Trading Ltd' WHERE id = ${r1}`);
    tree = { r1, c1, r2, c2 };
  });
  afterEach(() => vi.unstubAllEnvs());

  async function signedIn(address: string) {
    const result = await signInPerson(db, { email: address, password: PASSWORD }, headers);
    if (!result.ok) throw new Error(`sign-in refused: ${result.reason}`);
    return (await findSessionPrincipal(db, verifySessionToken(result.session.cookieToken)!.sessionId, cache))!;
  }

  async function person(organization: string, role: "owner" | "admin" | "viewer" = "owner") {
    const added = await addPerson(db, { email: email(role), name: "P", password: PASSWORD, role, organization });
    return signedIn(added.email);
  }

  /** The outbox's messages, sent now (the server's mail worker does this every few seconds). */
  async function sentMail(): Promise<MailMessage[]> {
    const sent: MailMessage[] = [];
    await drainMailOutbox(db, { send: async (m) => void sent.push(m), batch: 1_000 });
    return sent;
  }

  it("a reseller's owner invites into its customer: the mail is the reseller's, the link from PUBLIC_BASE_URL; the invitee sees that account only", async () => {
    vi.stubEnv("PUBLIC_BASE_URL", "https://billing.example.test");
    await sentMail();
    const owner = await person(tree.r1);
    const invitee = email("first-owner");
    expect(
      await inviteToAccount(db, owner, { billingGroupId: tree.c1, email: invitee, role: "owner" }, headers),
    ).toEqual({ ok: true });
    const [mail, ...more] = await sentMail();
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ to: invitee, fromName: "North Resale Trading Ltd" });
    expect(mail.text).toContain("invited by North Resale Trading Ltd to join North Customer");
    const link = /\S+\/accept-invitation\?id=\S+/.exec(mail.text)?.[0] ?? "";
    expect(link).toMatch(/^https:\/\/billing\.example\.test\/accept-invitation\?id=inv_/);
    expect(mail.text).not.toContain("evil.example");

    const id = decodeURIComponent(new URL(link).searchParams.get("id")!);
    expect(await findInvitation(db, id)).toMatchObject({ email: invitee, role: "owner", personExists: false });
    const [event] = await queryRows<{ billing_group_id: string; actor_id: string; after: unknown }>(
      db,
      sql`SELECT billing_group_id, actor_id, after FROM audit_events WHERE action = 'member.invited' AND target_id = ${id}`,
    );
    expect(event).toMatchObject({ billing_group_id: tree.c1, actor_id: owner.userId });

    expect((await acceptInvitation(db, { invitationId: id, name: "New Owner", password: PASSWORD }, headers)).ok).toBe(
      true,
    );
    const joined = await signedIn(invitee);
    expect(joined).toMatchObject({ billingGroupId: tree.c1, role: "owner", reachGroupIds: [tree.c1] });
    // A customer's owner: no cost, no provisioning (it has no accounts below it).
    for (const scope of ["calls:read_cost", "accounts:write", "payments:write", "rates:write"] as const) {
      expect(joined.scopes.has(scope), scope).toBe(false);
    }
  });

  it("the operator's staff invite into any account; a root account's mail is the operator's", async () => {
    const staff = await person("platform", "admin");
    const rootInvitee = email("root");
    expect(
      await inviteToAccount(db, staff, { billingGroupId: tree.r2, email: rootInvitee, role: "admin" }, headers),
    ).toEqual({ ok: true });
    expect(
      await inviteToAccount(db, staff, { billingGroupId: tree.c2, email: email("south"), role: "viewer" }, headers),
    ).toEqual({ ok: true });
    const sent = await sentMail();
    expect(sent.find((m) => m.to === rootInvitee)?.fromName).toBeUndefined();
    // South Resale has no billing name: its account's name.
    expect(sent.find((m) => m.to !== rootInvitee)?.fromName).toBe("South Resale");
  });

  it("outside its subtree 404, its own account 403, a customer's member 403: nothing invited", async () => {
    const owner = await person(tree.r1);
    const customerOwner = await person(tree.c1);
    const invitee = email("refused");
    const attempt = (who: typeof owner, billingGroupId: string) =>
      inviteToAccount(db, who, { billingGroupId, email: invitee, role: "viewer" }, headers);
    await expect(attempt(owner, tree.c2)).rejects.toMatchObject({ code: "not_found" });
    await expect(attempt(owner, tree.r2)).rejects.toMatchObject({ code: "not_found" });
    await expect(attempt(owner, tree.r1)).rejects.toMatchObject({ code: "insufficient_scope" });
    await expect(attempt(customerOwner, tree.c1)).rejects.toMatchObject({ code: "insufficient_scope" });
    // A reseller's viewer holds no accounts:write.
    await expect(attempt(await person(tree.r1, "viewer"), tree.c1)).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    expect(await queryRows(db, sql`SELECT 1 FROM invitations WHERE email = ${invitee}`)).toEqual([]);
    expect(await sentMail()).toEqual([]);
  });

  it("someone who is already a person joins with their own password; a member already is refused", async () => {
    const owner = await person(tree.r1);
    const existing = await person(tree.c2, "viewer");
    const address = (
      await queryRows<{ email: string }>(db, sql`SELECT email FROM users WHERE id = ${existing.userId}`)
    )[0].email;
    expect(
      await inviteToAccount(db, owner, { billingGroupId: tree.c1, email: address, role: "admin" }, headers),
    ).toEqual({ ok: true });
    const [mail] = await sentMail();
    const id = decodeURIComponent(/accept-invitation\?id=(\S+)/.exec(mail.text)![1]);
    expect(await findInvitation(db, id)).toMatchObject({ personExists: true });
    const accepted = await acceptInvitation(db, { invitationId: id, name: "", password: PASSWORD }, headers);
    expect(accepted.ok).toBe(true);
    const { members } = await listMembers(db, await organizationOfGroup(db, tree.c1));
    expect(members.find((m) => m.email === address)).toMatchObject({ role: "admin", userId: existing.userId });
    // Their other membership stays.
    const south = await listMembers(db, await organizationOfGroup(db, tree.c2));
    expect(south.members.map((m) => m.email)).toContain(address);
    expect(
      await inviteToAccount(db, owner, { billingGroupId: tree.c1, email: address, role: "viewer" }, headers),
    ).toMatchObject({ ok: false, reason: "refused" });
  });
});
