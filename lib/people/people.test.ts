import { sql } from "drizzle-orm";
import { afterEach, beforeAll, expect, it, vi } from "vitest";
import { findSessionPrincipal } from "@/lib/auth/find-key";
import { principalCacheFor, type PrincipalCache } from "@/lib/auth/principal-cache";
import { verifySessionToken } from "@/lib/auth/session-token";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { waitUntil } from "@/lib/testing/wait-until";
import { acceptInvitation, findInvitation } from "./accept-invitation";
import { addPerson } from "./add-person";
import { assignableRoles, changeMemberRole, inviteMember, listMembers, removeMember } from "./members";
import { drainMailOutbox } from "@/lib/mail/outbox";
import type { MailMessage } from "@/lib/mail/send-mail";
import { requestPasswordReset, resetPassword } from "./password-reset";
import { signInPerson } from "./sign-in";
import { throttledSignIn } from "@/lib/portal/sign-in";

process.env.SESSION_SECRET ??= "people-test-secret";

const headers = new Headers({ host: "portal.test", "user-agent": "vitest" });
let serial = 0;
const email = (who: string) => `${who}-${++serial}@example.test`;
const PASSWORD = "correct horse battery";

/** What the server would mail (no SMTP_URL: printed to the log), read back from console.log. */
function capturedMail(): () => string {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  return () => {
    spy.mockRestore();
    return lines.join("\n");
  };
}

describeOnEngines("people", (handle) => {
  let db: Db;
  let cache: PrincipalCache;
  let groupId: string;
  beforeAll(async () => {
    db = handle().db;
    cache = principalCacheFor(db);
    await waitUntil(() => cache.active, "the LISTEN to be active");
    groupId = (await createBillingGroup(db, { name: "Acme", currency: "USD" })).id;
  });
  afterEach(() => vi.restoreAllMocks());

  /** What the mail outbox holds, sent now (lib/mail/outbox.ts: the server's worker does this every few seconds). */
  async function sentMail(): Promise<string> {
    const sent: MailMessage[] = [];
    await drainMailOutbox(db, { send: async (m) => void sent.push(m), batch: 1_000 });
    return sent.map((m) => `[mail] to ${m.to}: ${m.subject}\n${m.text}`).join("\n");
  }

  /** A reset request as the portal makes it, then its background part (token and mail); the mail it sent. */
  async function requestedReset(address: string, from: Headers = headers): Promise<string> {
    const later: (() => Promise<void>)[] = [];
    expect(await requestPasswordReset(db, address, from, (task) => void later.push(task))).toEqual({ ok: true });
    expect(later).toHaveLength(1);
    for (const task of later) await task();
    return sentMail();
  }

  const resetToken = (text: string) => decodeURIComponent(/reset-password\?token=([^\s]+)/.exec(text)?.[1] ?? "");

  async function signedIn(address: string, password = PASSWORD) {
    const result = await signInPerson(db, { email: address, password }, headers);
    if (!result.ok) throw new Error(`sign-in refused: ${result.reason}`);
    const principal = await findSessionPrincipal(db, verifySessionToken(result.session.cookieToken)!.sessionId, cache);
    return { session: result.session, principal: principal! };
  }

  it("a person signs in with their password; the role decides the scopes, a viewer has no cost", async () => {
    const viewer = await addPerson(db, {
      email: email("viewer"),
      name: "V",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const [stored] = await queryRows<{ password: string }>(
      db,
      sql`SELECT password FROM auth_accounts WHERE user_id = ${viewer.userId}`,
    );
    expect(stored.password).toMatch(/^\$argon2id\$/);
    const { session, principal } = await signedIn(viewer.email);
    expect(session.id).toMatch(/^uss_/);
    expect(principal).toMatchObject({
      via: "user_session",
      userId: viewer.userId,
      billingGroupId: groupId,
      role: "viewer",
    });
    expect([...principal.scopes].sort()).toEqual(["calls:read", "invoices:read"]);
  });

  it("a reseller's owner holds the provisioning scopes, for its subtree; a customer's owner never", async () => {
    const reseller = (await createBillingGroup(db, { name: "Resells", currency: "USD" })).id;
    const customer = (await createBillingGroup(db, { name: "Buys", parentId: reseller })).id;
    const provisioning = ["accounts:write", "payments:write", "rates:write"];
    for (const [organization, expected] of [
      [reseller, true],
      [customer, false],
    ] as const) {
      const owner = await addPerson(db, {
        email: email(`owner-${organization}`),
        name: "O",
        password: PASSWORD,
        role: "owner",
        organization,
      });
      const { principal } = await signedIn(owner.email);
      expect(
        provisioning.map((s) => principal.scopes.has(s as never)),
        organization,
      ).toEqual(provisioning.map(() => expected));
    }
  });

  it("a wrong password and an unknown email get one answer", async () => {
    const person = await addPerson(db, {
      email: email("p"),
      name: "P",
      password: PASSWORD,
      role: "billing",
      organization: groupId,
    });
    expect(await signInPerson(db, { email: person.email, password: "not the password" }, headers)).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await signInPerson(db, { email: email("nobody"), password: PASSWORD }, headers)).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("sign-in attempts per account are limited whether or not the account exists", async () => {
    const nobody = email("flood");
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await signInPerson(db, { email: nobody, password: "x" }, headers));
    expect(answers.slice(0, 10).every((a) => !a.ok && a.reason === "invalid")).toBe(true);
    expect(answers[11]).toMatchObject({ ok: false, reason: "throttled" });
  });

  it("the 429 after too many attempts for one email names the account's limit, not the address's (issue 28 item 10)", async () => {
    const target = email("locked");
    let last: Awaited<ReturnType<typeof signInPerson>> | undefined;
    for (let i = 0; i < 11; i++) last = await signInPerson(db, { email: target, password: "wrong" }, headers);
    expect(last).toMatchObject({ ok: false, reason: "throttled", limit: "account" });
    if (last?.ok !== false || last.reason !== "throttled") throw new Error("not throttled");
    const post = (accept: string) => new Request("http://portal.test/session", { method: "POST", headers: { accept } });
    const problem = throttledSignIn(post("application/json"), last);
    expect(problem.status).toBe(429);
    const { detail } = (await problem.json()) as { detail: string };
    expect(detail).toMatch(/^Too many attempts for this account: retry in \d+ s\.$/);
    const page = await throttledSignIn(post("text/html"), last).text();
    expect(page).toContain("Too many attempts for this account.");
    expect(page).not.toContain("address");
  });

  it("cost only for the roles enabled on the group, and for platform staff", async () => {
    const billing = await addPerson(db, {
      email: email("billing"),
      name: "B",
      password: PASSWORD,
      role: "billing",
      organization: groupId,
    });
    const { principal } = await signedIn(billing.email);
    expect(principal.scopes.has("calls:read_cost")).toBe(false);
    await db.execute(sql`UPDATE billing_groups SET cost_roles = '{billing}' WHERE id = ${groupId}`);
    await waitUntil(
      async () => (await findSessionPrincipal(db, principal.sessionId!, cache))?.scopes.has("calls:read_cost") === true,
      "cost roles to reach the cached principal",
    );
    await db.execute(sql`UPDATE billing_groups SET cost_roles = '{}' WHERE id = ${groupId}`);
    const staff = await addPerson(db, {
      email: email("staff"),
      name: "S",
      password: PASSWORD,
      role: "viewer",
      organization: "platform",
    });
    const platform = (await signedIn(staff.email)).principal;
    expect(platform.billingGroupId).toBeNull();
    expect(platform.scopes.has("calls:read_cost")).toBe(true);
  });

  it("an admin invites by email; the invitee accepts with a password and holds the role", async () => {
    const admin = await addPerson(db, {
      email: email("admin"),
      name: "A",
      password: PASSWORD,
      role: "admin",
      organization: groupId,
    });
    const actor = (await signedIn(admin.email)).principal;
    const invitee = email("invitee");
    const mail = capturedMail();
    expect(await inviteMember(db, actor, { email: invitee, role: "developer" }, headers)).toEqual({ ok: true });
    const text = mail();
    const id = /accept-invitation\?id=([\w-]+)/.exec(text)?.[1];
    expect(text).toContain(`http://localhost:${process.env.PORT || 3000}/accept-invitation?id=`);
    expect(await findInvitation(db, id!)).toMatchObject({ email: invitee, role: "developer", personExists: false });
    const accepted = await acceptInvitation(db, { invitationId: id!, name: "New Dev", password: PASSWORD }, headers);
    expect(accepted.ok).toBe(true);
    const dev = await signedIn(invitee);
    expect(dev.principal).toMatchObject({ role: "developer", billingGroupId: groupId });
    expect(await findInvitation(db, id!)).toBeNull();
    const listed = await listMembers(db, actor.organizationId!);
    expect(listed.members.map((m) => m.email)).toContain(invitee);
  });

  it("an invitation and its audit event commit together: when the event cannot be written, nobody is invited", async () => {
    const admin = await addPerson(db, {
      email: email("admin"),
      name: "A",
      password: PASSWORD,
      role: "admin",
      organization: groupId,
    });
    const actor = (await signedIn(admin.email)).principal;
    const invitee = email("unaudited");
    await db.execute(sql`CREATE FUNCTION refuse_invited_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.action = 'member.invited' THEN RAISE EXCEPTION 'audit log unavailable'; END IF; RETURN NEW; END $$`);
    await db.execute(sql`CREATE TRIGGER refuse_invited_event BEFORE INSERT ON audit_events
      FOR EACH ROW EXECUTE FUNCTION refuse_invited_event()`);
    try {
      await expect(inviteMember(db, actor, { email: invitee, role: "viewer" }, headers)).rejects.toThrow();
    } finally {
      await db.execute(sql`DROP TRIGGER refuse_invited_event ON audit_events`);
      await db.execute(sql`DROP FUNCTION refuse_invited_event()`);
    }
    const pending = await queryRows(db, sql`SELECT 1 FROM invitations WHERE email = ${invitee}`);
    expect(pending).toEqual([]);
  });

  it("a role change ends the member's sessions there, a removal too; a viewer cannot manage members", async () => {
    const owner = await addPerson(db, {
      email: email("owner"),
      name: "O",
      password: PASSWORD,
      role: "owner",
      organization: groupId,
    });
    const member = await addPerson(db, {
      email: email("member"),
      name: "M",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const actor = (await signedIn(owner.email)).principal;
    const target = (await signedIn(member.email)).principal;
    expect(await changeMemberRole(db, target, { memberId: owner.memberId, role: "viewer" })).toMatchObject({
      ok: false,
      reason: "forbidden",
    });
    expect(await changeMemberRole(db, actor, { memberId: member.memberId, role: "admin" })).toEqual({ ok: true });
    // The session from before the change carries neither the old role nor the new one: it has ended.
    expect(await findSessionPrincipal(db, target.sessionId!, cache)).toBeNull();
    const again = (await signedIn(member.email)).principal;
    expect(again.scopes.has("members:write")).toBe(true);
    expect(await removeMember(db, actor, { memberId: member.memberId })).toEqual({ ok: true });
    expect(await findSessionPrincipal(db, again.sessionId!, cache)).toBeNull();
    // The actor's own session goes on.
    expect(await findSessionPrincipal(db, actor.sessionId!, cache)).not.toBeNull();
    // An admin cannot touch an owner; nobody their own membership.
    const admin = await addPerson(db, {
      email: email("admin2"),
      name: "A",
      password: PASSWORD,
      role: "admin",
      organization: groupId,
    });
    const adminActor = (await signedIn(admin.email)).principal;
    expect(await removeMember(db, adminActor, { memberId: owner.memberId })).toMatchObject({
      ok: false,
      reason: "refused",
    });
    expect(await changeMemberRole(db, actor, { memberId: owner.memberId, role: "viewer" })).toMatchObject({
      ok: false,
      reason: "refused",
    });

    const events = await queryRows<{
      action: string;
      actor_type: string;
      actor_id: string;
      target_id: string;
      before: unknown;
      after: unknown;
    }>(
      db,
      sql`SELECT action, actor_type, actor_id, target_id, before, after FROM audit_events
        WHERE target_id = ${member.memberId} ORDER BY id`,
    );
    expect(events).toEqual([
      {
        action: "member.role_changed",
        actor_type: "user",
        actor_id: owner.userId,
        target_id: member.memberId,
        before: { email: member.email, role: "viewer" },
        after: { email: member.email, role: "admin" },
      },
      {
        action: "member.removed",
        actor_type: "user",
        actor_id: owner.userId,
        target_id: member.memberId,
        before: { email: member.email, role: "admin" },
        after: null,
      },
    ]);
  });

  it("sign-ins and failed sign-ins are in the audit log, in the person's organization", async () => {
    const person = await addPerson(db, {
      email: email("audited"),
      name: "Au",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    await signedIn(person.email);
    await signInPerson(db, { email: person.email, password: "wrong password" }, headers);
    const events = await queryRows<{ action: string; billing_group_id: string | null; actor_id: string }>(
      db,
      sql`SELECT action, billing_group_id, actor_id FROM audit_events WHERE target_id = ${person.userId} ORDER BY id`,
    );
    expect(events).toEqual([
      { action: "user.signed_in", billing_group_id: groupId, actor_id: person.userId },
      { action: "user.sign_in_failed", billing_group_id: groupId, actor_id: person.userId },
    ]);
  });

  it("a password reset by mailed link; the old password and sessions stop working", async () => {
    const person = await addPerson(db, {
      email: email("reset"),
      name: "R",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const before = (await signedIn(person.email)).principal;
    const text = await requestedReset(person.email);
    expect(await requestedReset(email("unknown"))).toBe("");
    const token = resetToken(text);
    expect(token).not.toBe("");
    expect(text.match(/reset-password\?token=/g)).toHaveLength(1);
    expect(await resetPassword(db, { token, password: "a brand new password" }, headers)).toEqual({ ok: true });
    expect(await resetPassword(db, { token, password: "another new password" }, headers)).toMatchObject({
      ok: false,
      reason: "invalid_token",
    });
    expect(await signInPerson(db, { email: person.email, password: PASSWORD }, headers)).toMatchObject({
      reason: "invalid",
    });
    expect(await findSessionPrincipal(db, before.sessionId!, cache)).toBeNull();
    await signedIn(person.email, "a brand new password");
  });

  it("mailed links come from configuration, never from the request's Host (issue 28 item 5)", async () => {
    const evil = new Headers({ host: "evil.example", origin: "http://evil.example", "user-agent": "vitest" });
    const person = await addPerson(db, {
      email: email("victim"),
      name: "V",
      password: PASSWORD,
      role: "admin",
      organization: groupId,
    });
    const actor = (await signedIn(person.email)).principal;
    const linksOf = (text: string) => text.match(/https?:\/\/[^\s/]+\/(reset-password|accept-invitation)\?\S+/g) ?? [];

    let mail = capturedMail();
    expect(await inviteMember(db, actor, { email: email("guest"), role: "viewer" }, evil)).toEqual({ ok: true });
    let links = linksOf(`${mail()}\n${await requestedReset(person.email, evil)}`);
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toMatch(new RegExp(`^http://localhost:${process.env.PORT || 3000}/`));

    vi.stubEnv("PUBLIC_BASE_URL", "https://billing.example.test");
    try {
      mail = capturedMail();
      expect(await inviteMember(db, actor, { email: email("guest"), role: "viewer" }, evil)).toEqual({ ok: true });
      links = linksOf(`${mail()}\n${await requestedReset(person.email, evil)}`);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toMatch(/^https:\/\/billing\.example\.test\//);
  });

  it("a password change voids every reset link of the person, not just the one used (issue 28 item 6)", async () => {
    const person = await addPerson(db, {
      email: email("resets"),
      name: "R",
      password: PASSWORD,
      role: "viewer",
      organization: groupId,
    });
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push(resetToken(await requestedReset(person.email)));
    expect(new Set(tokens).size).toBe(4);
    expect(await resetPassword(db, { token: tokens[3], password: "the newest password" }, headers)).toEqual({
      ok: true,
    });
    for (const older of tokens.slice(0, 3)) {
      expect(await resetPassword(db, { token: older, password: "an older link's password" }, headers)).toEqual({
        ok: false,
        reason: "invalid_token",
      });
    }
    await signedIn(person.email, "the newest password");
    // A refused new password (too short) changes nothing: the link still works, the others were already void.
    const [fresh, other] = [
      resetToken(await requestedReset(person.email)),
      resetToken(await requestedReset(person.email)),
    ];
    expect(await resetPassword(db, { token: fresh, password: "short" }, headers)).toEqual({
      ok: false,
      reason: "weak_password",
    });
    expect(await resetPassword(db, { token: other, password: "yet another password" }, headers)).toEqual({ ok: true });
    expect(await resetPassword(db, { token: fresh, password: "a later password" }, headers)).toMatchObject({
      reason: "invalid_token",
    });
  });

  it("the invite form offers an admin the roles an admin may give, and no owner (issue 28 item 10)", async () => {
    const admin = await addPerson(db, {
      email: email("offering"),
      name: "A",
      password: PASSWORD,
      role: "admin",
      organization: groupId,
    });
    const actor = (await signedIn(admin.email)).principal;
    const offered = assignableRoles(actor.role);
    expect(offered).not.toContain("owner");
    expect(assignableRoles("owner")).toContain("owner");
    const mail = capturedMail();
    try {
      // Every role offered is one the invitation takes; the one left out is the one refused.
      for (const role of offered) {
        expect(await inviteMember(db, actor, { email: email("offered"), role }, headers)).toEqual({ ok: true });
      }
      expect(await inviteMember(db, actor, { email: email("offered"), role: "owner" }, headers)).toMatchObject({
        ok: false,
        reason: "refused",
      });
    } finally {
      mail();
    }
  });
});
