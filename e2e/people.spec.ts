import type { Browser, Page } from "@playwright/test";
import { adminCli, expect, screenshot, test, type PersonKind } from "./fixtures";
import { seriousFindings } from "./axe";
import { readMailbox } from "./mailbox";
import type { E2EState } from "./state";

// People sign in by email and password; their role in the organization decides what they see (README "People,
// organizations and roles"). Mail goes over SMTP to the suite's own server (e2e/mailbox.ts).

const COST_WORDS = /buyCost|margin|supplierId/;

const EXPECTED: Record<PersonKind, { label: string; cost: boolean; members: boolean; alerts: boolean }> = {
  viewer: { label: "Customer viewer", cost: false, members: false, alerts: false },
  // The money pages: low-balance alerts (and paying, e2e/payments.spec.ts).
  billing: { label: "Customer billing", cost: false, members: false, alerts: true },
  reseller: { label: "Customer owner · cost view", cost: true, members: true, alerts: true },
  platform: { label: "Platform admin · cost view", cost: true, members: true, alerts: true },
};

async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** The newest message to `to` whose text matches `link`, waited for; returns the link's path and query. */
async function mailedLink(e2e: E2EState, to: string, link: RegExp): Promise<string> {
  let found = "";
  await expect
    .poll(
      () => {
        const mail = readMailbox(e2e.mailDir!).filter((m) => m.to.includes(to) && link.test(m.text));
        found = mail.length ? link.exec(mail[mail.length - 1].text)![0] : "";
        return found;
      },
      { message: `a mail to ${to} with ${link}` },
    )
    .not.toBe("");
  const url = new URL(found);
  return `${url.pathname}${url.search}`;
}

async function newPage(browser: Browser, e2e: E2EState): Promise<Page> {
  const context = await browser.newContext({ baseURL: e2e.baseURL, timezoneId: "America/New_York" });
  return context.newPage();
}

for (const kind of Object.keys(EXPECTED) as PersonKind[]) {
  test(`the demo ${kind} signs in by email and password and sees what the role allows`, async ({ page, signInAs }) => {
    const expected = EXPECTED[kind];
    await signInAs(kind);
    await expect(page.locator("header")).toContainText(expected.label);
    await expect(page.getByRole("link", { name: "Members" })).toHaveCount(expected.members ? 1 : 0);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Alerts", exact: true })).toHaveCount(expected.alerts ? 1 : 0);
    await screenshot(page, `person-${kind}-dashboard`);

    const calls = await page.request.get("/v1/calls?pageSize=50");
    expect(calls.status()).toBe(200);
    const text = await calls.text();
    if (expected.cost) expect(text).toMatch(/"buyCost"/);
    else {
      expect(text).not.toMatch(COST_WORDS);
      // Nor the call log's HTML or RSC payload (docs/contract.md §4).
      const html = await page.request.get("/calls");
      const rsc = await page.request.get("/calls", { headers: { RSC: "1" } });
      expect(await html.text()).not.toMatch(COST_WORDS);
      expect(await rsc.text()).not.toMatch(COST_WORDS);
    }
    await page.goto("/members");
    if (expected.members) await expect(page.locator("tr[data-member-email]").first()).toBeVisible();
    else await expect(page.getByRole("note")).toContainText("Your role cannot see");
  });
}

// Issue 30: Members said "viewer (calls)" and "billing (balance, reports, calls)"; each role is now described by what
// its scopes let a person do (describeRole, lib/auth/roles.ts), in the list and in the invite form.
test("the Members page says what each role can do, in the list and the invite form", async ({ page, signInAs }) => {
  await signInAs("reseller");
  await page.goto("/members");
  const roles = page.getByTestId("role-abilities");
  await expect(roles.getByRole("heading", { name: "What each role can do" })).toBeVisible();
  const said = async (role: string) => (await roles.locator(`[data-role="${role}"] dd`).innerText()).trim();
  expect(await said("viewer")).toBe("see calls, balance, reports, rates and invoices");
  expect(await said("billing")).toBe(
    "see calls, balance, reports, rates and invoices; pay (top-ups by card, auto-recharge); set low-balance alerts and webhooks",
  );
  expect(await said("developer")).toContain("create and revoke API keys");
  await expect(page.getByLabel("Role", { exact: true }).locator('option[value="billing"]')).toHaveText(
    `billing: ${await said("billing")}`,
  );
  for (const [name, width, height] of [
    ["desktop", 1440, 900],
    ["phone", 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    expect(await seriousFindings(page), `/members at ${name}`).toEqual([]);
    await roles.scrollIntoViewIfNeeded();
    await screenshot(page, `members-roles-${name}`);
  }
});

test("a wrong password and an unknown email get the same message, and no cookie", async ({ page, e2e }) => {
  await signInWithPassword(page, e2e.people.viewer.email, "not the password at all");
  await expect(page.locator("main").getByRole("alert")).toContainText("do not match an account");
  const wrong = await page.locator("main").getByRole("alert").innerText();
  await signInWithPassword(page, "nobody-here@example.com", "not the password at all");
  await expect(page.locator("main").getByRole("alert")).toHaveText(wrong);
  expect(await page.context().cookies()).toEqual([]);
});

test("an owner invites by email; the invitee accepts through the mailed link and sees only what the role allows; a role change ends their session, a removal refuses their next request", async ({
  page,
  signInAs,
  browser,
  e2e,
}) => {
  test.skip(!e2e.mailDir, "needs the suite's own server and mailbox");
  const invitee = `invited-${Date.now()}@example.com`;
  await signInAs("reseller");
  await page.goto("/members");
  await page.getByLabel("Email").fill(invitee);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Invite" }).click();
  await expect(page.getByRole("status")).toContainText(`Invitation sent to ${invitee}`);
  // In place, no reload: the field is empty for the next one, and the invitation is listed as pending.
  const pending = page.getByRole("region", { name: "Pending invitations" });
  await expect(page.getByLabel("Email")).toHaveValue("");
  await expect(pending).toContainText(`${invitee} as viewer`);
  // And the next one, right after.
  const second = `invited-second-${Date.now()}@example.com`;
  await page.getByLabel("Email").fill(second);
  await page.getByLabel("Role", { exact: true }).selectOption("billing");
  await page.getByRole("button", { name: "Invite" }).click();
  await expect(page.getByRole("status")).toContainText(`Invitation sent to ${second}`);
  await expect(page.getByLabel("Email")).toHaveValue("");
  await expect(pending).toContainText(`${second} as billing`);
  await expect(pending).toContainText(`${invitee} as viewer`);
  await screenshot(page, "members-invited");

  const link = await mailedLink(e2e, invitee, /http:\/\/\S+\/accept-invitation\?id=\S+/);
  const member = await newPage(browser, e2e);
  await member.goto(link);
  await expect(member.getByRole("heading", { name: /^Join / })).toBeVisible();
  await member.getByLabel("Your name").fill("Ivy Invited");
  await member.getByLabel("Choose a password").fill("invited password 1");
  await member.getByLabel("Repeat it").fill("invited password 1");
  await screenshot(member, "accept-invitation");
  await member.getByRole("button", { name: "Accept and sign in" }).click();
  await member.waitForURL((url) => url.pathname === "/");
  await expect(member.locator("header")).toContainText("Customer viewer");
  await expect(member.getByRole("link", { name: "Members" })).toHaveCount(0);
  expect(await (await member.request.get("/v1/calls?pageSize=50")).text()).not.toMatch(COST_WORDS);

  // The owner makes them an admin: their session ends (a privilege change); signed in again, they have Members.
  await page.reload();
  const row = page.locator(`tr[data-member-email="${invitee}"]`);
  await row.getByLabel(`Role of ${invitee}`).selectOption("admin");
  await row.getByRole("button", { name: "Change role" }).click();
  await expect(page.getByRole("status")).toContainText("Role changed");
  await member.reload();
  await expect(member).toHaveURL(/\/sign-in/);
  await member.getByLabel("Email").fill(invitee);
  await member.getByLabel("Password").fill("invited password 1");
  await member.getByRole("button", { name: "Sign in", exact: true }).click();
  await member.waitForURL((url) => url.pathname === "/");
  await expect(member.getByRole("link", { name: "Members" })).toHaveCount(1);

  // Removed: their next request is refused, their next page is the sign-in.
  await page
    .locator(`tr[data-member-email="${invitee}"]`)
    .getByRole("button", { name: `Remove ${invitee}` })
    .click();
  await expect(page.getByRole("status")).toContainText("Member removed");
  await expect(page.locator(`tr[data-member-email="${invitee}"]`)).toHaveCount(0);
  expect((await member.request.get("/v1/balances")).status()).toBe(401);
  await member.goto("/calls");
  await expect(member).toHaveURL(/\/sign-in\?next=%2Fcalls/);
  await member.context().close();
});

test("a forgotten password is reset through the mailed link; the old one stops working", async ({ page, e2e }) => {
  test.skip(!e2e.mailDir || !e2e.dataDir, "needs the suite's own server and mailbox");
  const email = `reset-${Date.now()}@example.com`;
  adminCli(e2e, [
    "people",
    "add",
    "--email",
    email,
    "--name",
    "Rita Reset",
    "--role",
    "viewer",
    "--group",
    e2e.keys.read.billingGroupId!,
    "--password",
    "first password 1",
  ]);
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await page.waitForURL("**/forgot-password");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Mail me a link" }).click();
  await expect(page.getByRole("status")).toContainText("If that address has an account");

  await page.goto(await mailedLink(e2e, email, /http:\/\/\S+\/reset-password\?token=\S+/));
  await page.getByLabel("New password").fill("second password 2");
  await page.getByLabel("Repeat it").fill("second password 2");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByRole("status")).toContainText("Your password has been changed");

  await signInWithPassword(page, email, "first password 1");
  await expect(page.locator("main").getByRole("alert")).toContainText("do not match an account");
  await signInWithPassword(page, email, "second password 2");
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.locator("header")).toContainText("Customer viewer");
});
