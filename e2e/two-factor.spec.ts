import type { Browser, BrowserContext, Page } from "@playwright/test";
import { secretOfOtpauthUri, totpCode } from "../lib/testing/totp";
import { adminCli, expect, screenshot, test } from "./fixtures";
import type { E2EState } from "./state";

// The second factor (README "Second factor", docs/contract.md §15): an authenticator app with recovery codes, an
// organization that requires it, and passkeys, through the Security page and the sign-in page. Each test makes its
// own people (and, for the requirement, its own organization) so that the other specs' people are untouched.

const PASSWORD = "second factor password";

function addPerson(e2e: E2EState, who: string, role: string, group: string): string {
  const email = `${who}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  adminCli(e2e, [
    "people",
    "add",
    "--email",
    email,
    "--name",
    who,
    "--role",
    role,
    "--group",
    group,
    "--password",
    PASSWORD,
  ]);
  return email;
}

async function passwordStep(page: Page, email: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function signOut(page: Page): Promise<void> {
  await page.locator("header").getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in\?signedOut=1/);
}

/**
 * Turns the authenticator app on from the Security page: the password, then the QR code (or its otpauth address)
 * with the recovery codes, shown once, then a code. Returns the secret and the codes.
 */
async function enrollTotp(page: Page): Promise<{ secret: string; codes: string[] }> {
  const totp = page.getByRole("region", { name: "Authenticator app (TOTP)" });
  await totp.getByLabel("Your password").fill(PASSWORD);
  await totp.getByRole("button", { name: "Set up authenticator app" }).click();
  const uri = await page.getByTestId("totp-uri").innerText();
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  const list = page.getByRole("list", { name: "Recovery codes" });
  await expect(list.getByRole("listitem")).toHaveCount(10);
  const codes = await list.getByRole("listitem").allInnerTexts();
  await screenshot(page, "security-totp-setup");
  const secret = secretOfOtpauthUri(uri);
  await totp.getByLabel("Code from the app").fill(totpCode(secret));
  await totp.getByRole("button", { name: "Turn on" }).click();
  await expect(page.locator("main").getByRole("status").first()).toContainText("Two-factor sign-in is on");
  // Shown once: not after the page is rendered anew.
  await expect(page.getByRole("list", { name: "Recovery codes" })).toHaveCount(0);
  return { secret, codes };
}

test("a person turns on an authenticator app, then signs in with password and code, or a recovery code once", async ({
  page,
  e2e,
  signInAs,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (admin CLI)");
  const email = addPerson(e2e, "totp", "viewer", e2e.keys.read.billingGroupId!);
  await signInAs({ email, password: PASSWORD });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Security" }).click();
  await page.waitForURL("**/security");
  await expect(page.getByRole("region", { name: "Authenticator app (TOTP)" })).toContainText("Off.");
  const { secret, codes } = await enrollTotp(page);
  // The session was replaced when the privilege changed: the page still works with the new cookie.
  await page.reload();
  await expect(page.getByRole("region", { name: "Authenticator app (TOTP)" })).toContainText("On.");
  await expect(page.getByRole("region", { name: "Authenticator app (TOTP)" })).toContainText("10 recovery codes left");
  await signOut(page);

  // Password, then the code of the moment.
  await passwordStep(page, email);
  await page.waitForURL("**/sign-in/second-factor");
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain("cb_session");
  await screenshot(page, "second-factor-step");
  await page.getByLabel("Authentication code").fill("000000" === totpCode(secret) ? "111111" : "000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("That code is not right");
  await page.getByLabel("Authentication code").fill(totpCode(secret));
  await page.getByRole("button", { name: "Verify" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.locator("header")).toContainText("Customer viewer");
  await signOut(page);

  // A recovery code instead; it works once.
  await passwordStep(page, email);
  await page.getByRole("link", { name: "Lost your device? Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(codes[0]);
  await page.getByRole("button", { name: "Verify" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await signOut(page);
  await passwordStep(page, email);
  await page.getByRole("link", { name: "Lost your device? Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(codes[0]);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("That code is not right");
});

test("an organization that requires two-factor sends a member without it to enroll; /v1 answers 403 until then", async ({
  page,
  e2e,
  signInAs,
  browser,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (admin CLI)");
  const group = adminCli(e2e, ["groups", "create", "--name", `Strict ${Date.now()}`, "--currency", "USD"]) as {
    id: string;
  };
  const owner = addPerson(e2e, "strict-owner", "owner", group.id);
  const member = addPerson(e2e, "strict-member", "billing", group.id);

  // The owner needs a second factor themselves before requiring it.
  await signInAs({ email: owner, password: PASSWORD });
  await page.goto("/security");
  const organization = page.getByRole("region", { name: "Your organization" });
  await organization.getByRole("button", { name: "Require two-factor for all members" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("Set up your own authenticator app first");
  await enrollTotp(page);
  await page.goto("/security");
  await organization.getByRole("button", { name: "Require two-factor for all members" }).click();
  await expect(page.locator("main").getByRole("status")).toContainText("now need a second factor");

  const context = await browser.newContext({ baseURL: e2e.baseURL });
  const memberPage = await context.newPage();
  await memberPage.goto("/sign-in");
  await memberPage.getByLabel("Email").fill(member);
  await memberPage.getByLabel("Password").fill(PASSWORD);
  await memberPage.getByRole("button", { name: "Sign in", exact: true }).click();
  await memberPage.waitForURL("**/security?required=1");
  await expect(memberPage.locator("main").getByRole("alert")).toContainText(
    "Your organization requires two-factor sign-in",
  );
  await screenshot(memberPage, "security-enrollment-required");
  await memberPage.goto("/calls");
  await expect(memberPage).toHaveURL(/\/security\?required=1$/);
  const refused = await memberPage.request.get("/v1/calls?pageSize=5");
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ code: "two_factor_required" });

  await enrollTotp(memberPage);
  await memberPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
  await memberPage.waitForURL((url) => url.pathname === "/");
  await expect(memberPage.locator("header")).toContainText("Customer billing");
  expect((await memberPage.request.get("/v1/calls?pageSize=5")).status()).toBe(200);
  await context.close();

  // The operator's switch.
  expect(adminCli(e2e, ["people", "require-2fa", "--group", group.id, "--off"])).toEqual({
    organization: group.id,
    requireTwoFactor: false,
  });
  await page.goto("/security");
  await expect(organization.getByRole("button", { name: "Require two-factor for all members" })).toBeVisible();
});

/** A browser context on http://localhost:port (browsers take no IP address as a WebAuthn relying party). */
async function localhostContext(browser: Browser, e2e: E2EState): Promise<BrowserContext> {
  const url = new URL(e2e.baseURL);
  url.hostname = "localhost";
  return browser.newContext({ baseURL: url.origin });
}

test("a person adds a passkey on the Security page and signs in with it (virtual authenticator)", async ({
  browser,
  e2e,
  browserName,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (admin CLI)");
  test.skip(browserName !== "chromium", "the virtual authenticator is Chromium's (CDP)");
  const email = addPerson(e2e, "passkey", "viewer", e2e.keys.read.billingGroupId!);
  const context = await localhostContext(browser, e2e);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await passwordStep(page, email);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/security");
  const passkeys = page.getByRole("region", { name: "Passkeys" });
  await passkeys.getByLabel("Name of the new passkey").fill("Virtual authenticator");
  await passkeys.getByRole("button", { name: "Add a passkey" }).click();
  await expect(passkeys.getByRole("status")).toContainText("Passkey added");
  await expect(passkeys.getByRole("list", { name: "Your passkeys" })).toContainText("Virtual authenticator");
  await screenshot(page, "security-passkey-added");
  await signOut(page);

  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.locator("header")).toContainText("Customer viewer");
  expect((await page.request.get("/v1/calls?pageSize=5")).status()).toBe(200);
  await context.close();
});
