import type { Page } from "@playwright/test";
import { seriousFindings } from "./axe";
import { expect, screenshot, test } from "./fixtures";
import { readMailbox } from "./mailbox";
import { readState, type DemoPerson } from "./state";

// A reseller's owner invites a person into its customer's organization from the console (issue 32 item 5,
// docs/contract.md "Reseller tiers"): the mail is in the reseller's name, the invitee accepts through its link, signs
// in and sees that customer's account only: its calls and balance, no cost, nothing of the reseller or the operator.

const CUSTOMER = "Reseller's Customer Co";

function tierReseller(): DemoPerson {
  return (readState().people as unknown as Record<"tierReseller", DemoPerson>).tierReseller;
}

/** The newest accept link mailed to `to`, waited for, with the message's From. */
async function mailedInvitation(mailDir: string, to: string): Promise<{ path: string; from: string; text: string }> {
  const link = /http:\/\/\S+\/accept-invitation\?id=\S+/;
  let found: { path: string; from: string; text: string } | null = null;
  await expect
    .poll(
      () => {
        const mail = readMailbox(mailDir).filter((m) => m.to.includes(to) && link.test(m.text));
        const last = mail.at(-1);
        if (!last) return false;
        const url = new URL(link.exec(last.text)![0]);
        found = { path: `${url.pathname}${url.search}`, from: last.from, text: last.text };
        return true;
      },
      { message: `an invitation mailed to ${to}` },
    )
    .toBe(true);
  return found!;
}

/** Every same-origin link a page shows (not signing out), as path and query. */
async function linksOf(page: Page): Promise<string[]> {
  const hrefs = await page
    .locator("a[href]")
    .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href).filter((h) => h.startsWith(location.origin)));
  return hrefs
    .map((h) => {
      const url = new URL(h);
      return `${url.pathname}${url.search}`;
    })
    .filter((p) => !p.startsWith("/session/"));
}

test("a reseller's owner invites a person into its customer from the console; they accept, sign in and see that account only", async ({
  page,
  signInAs,
  browser,
  e2e,
}) => {
  test.skip(!e2e.mailDir, "needs the suite's own server and mailbox");
  // Every page of the invitee's navigation and each link on it, on a shared loaded machine.
  test.setTimeout(480_000);
  await signInAs(tierReseller());
  const own = ((await (await page.request.get("/v1/balances")).json()) as { billingGroupId: string }).billingGroupId;

  // Its own account's page invites nobody: its own people are its Members page's.
  await page.goto(`/console/accounts/${own}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByTestId("account-people")).toHaveCount(0);

  // The customer, opened from the console's overview.
  await page.goto("/console/accounts");
  await page.getByTestId("accounts-search").fill(CUSTOMER);
  await page.getByRole("link", { name: CUSTOMER, exact: true }).click();
  await page.waitForURL(/\/console\/accounts\/bg_/);
  const customer = new URL(page.url()).pathname.split("/").pop()!;
  const people = page.getByTestId("account-people");
  await expect(people).toContainText("tier-customer@example.com");

  const invitee = `first-person-${Date.now()}@example.com`;
  const form = people.getByRole("form", { name: `Invite a person to ${CUSTOMER}` });
  await form.getByLabel("Email").fill(invitee);
  // Every role, owner included: the reseller provisions the account's people.
  await expect(form.getByLabel("Role", { exact: true }).locator("option")).toHaveCount(5);
  await form.getByLabel("Role", { exact: true }).selectOption("owner");
  await form.getByRole("button", { name: "Invite" }).click();
  await expect(people.getByRole("status")).toContainText(`Invitation sent to ${invitee}`);
  await expect(form.getByLabel("Email")).toHaveValue("");
  await expect(people.getByRole("region", { name: "Pending invitations" })).toContainText(`${invitee} as owner`);
  await people.scrollIntoViewIfNeeded();
  await screenshot(page, "reseller-invite-console");
  expect(await seriousFindings(page), "the customer's console page").toEqual([]);

  // The mail: in the reseller's name (the From's display name and the text), the link from configuration.
  const mail = await mailedInvitation(e2e.mailDir!, invitee);
  expect(mail.from).toMatch(/Tiered Reseller/);
  expect(mail.text).toMatch(new RegExp(`invited by Tiered Reseller[^\\n]* to join ${CUSTOMER}`));

  const context = await browser.newContext({ baseURL: e2e.baseURL, timezoneId: "America/New_York" });
  const member = await context.newPage();
  await member.goto(mail.path);
  await expect(member.getByRole("heading", { name: `Join ${CUSTOMER}` })).toBeVisible();
  await member.getByLabel("Your name").fill("Fay First");
  await member.getByLabel("Choose a password").fill("first person password 1");
  await member.getByLabel("Repeat it").fill("first person password 1");
  await screenshot(member, "reseller-invite-accept");
  expect(await seriousFindings(member), "accept invitation").toEqual([]);
  await member.getByRole("button", { name: "Accept and sign in" }).click();
  await member.waitForURL((url) => url.pathname === "/");

  // Signed in again, through the sign-in page, with the password they chose.
  await context.clearCookies();
  await member.goto("/sign-in");
  await member.getByLabel("Email").fill(invitee);
  await member.getByLabel("Password").fill("first person password 1");
  await member.getByRole("button", { name: "Sign in", exact: true }).click();
  await member.waitForURL((url) => url.pathname === "/");
  await expect(member.locator("header")).toContainText("Customer owner");
  await expect(member.locator("header")).not.toContainText(/cost view|margins/);
  // A reseller's customer pays its reseller: no card form of the operator's, the reseller named instead.
  await expect(member.getByTestId("payments-card")).toHaveCount(0);
  await expect(member.getByTestId("how-to-pay")).toContainText(/topped up by Tiered Reseller/);
  await screenshot(member, "reseller-invite-invitee-dashboard");
  expect(await seriousFindings(member), "the invitee's dashboard").toEqual([]);

  // Their account: the customer's, with its calls; nothing of another account, no cost.
  const balance = (await (await member.request.get("/v1/balances")).json()) as { billingGroupId: string };
  expect(balance.billingGroupId).toBe(customer);
  const calls = (await (await member.request.get("/v1/calls?pageSize=50")).json()) as {
    calls: { billingGroupId: string }[];
  };
  expect(calls.calls.length).toBeGreaterThan(0);
  expect(new Set(calls.calls.map((c) => c.billingGroupId))).toEqual(new Set([customer]));
  expect((await member.goto("/console/accounts"))?.status()).toBe(404);
  // Naming the reseller's account reads none of its calls: only the customer's own.
  const theirs = (await (await member.request.get(`/v1/calls?account=${own}&pageSize=50`)).json()) as {
    calls: { billingGroupId: string }[];
  };
  expect(theirs.calls.filter((c) => c.billingGroupId !== customer)).toEqual([]);

  // Every page of their navigation and every link each shows: all answer, none names the reseller's account, an
  // operator's supplier or a cost field.
  const forbidden = new RegExp(`${own}|buyCost|supplierId|Northwind Carrier Services|Blue Ocean Voice|carrier_a`);
  const nav = await member
    .getByRole("navigation", { name: "Main" })
    .getByRole("link")
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  expect(nav).toEqual(expect.arrayContaining(["/calls", "/invoices", "/members"]));
  const followed = new Set<string>();
  for (const path of new Set(nav)) {
    const response = await member.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(member.getByRole("heading", { level: 1 }).first(), path).toBeVisible();
    await expect(member.getByText(/Something went wrong|Application error|could not be found/i), path).toHaveCount(0);
    expect(await member.content(), `${path} HTML`).not.toMatch(forbidden);
    for (const link of await linksOf(member)) {
      if (followed.has(link)) continue;
      followed.add(link);
      const answer = await member.request.get(link);
      expect(answer.status(), `${link} (from ${path})`).toBeLessThan(400);
      if (/text|json|csv/.test(answer.headers()["content-type"] ?? ""))
        expect(await answer.text(), `${link} (from ${path})`).not.toMatch(forbidden);
    }
  }
  expect(followed.size).toBeGreaterThan(nav.length);
  await member.goto("/calls");
  await expect(member.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await screenshot(member, "reseller-invite-invitee-calls");
  await context.close();
});
