import { startTestIdp, type TestIdp } from "../lib/testing/oidc-provider";
import { seriousFindings } from "./axe";
import { adminCli, expect, screenshot, test } from "./fixtures";

// OIDC single sign-on (README "Single sign-on"): a real OpenID Connect provider (the npm oidc-provider) on a free
// 127.0.0.1 port, registered for the portal's callback; the operator sets it for the demo's customer organization
// with the CLI; people of its verified domain sign in through it and land signed in with their role.

const DOMAIN = "sso-e2e.test";
let idp: TestIdp;
// One provider and one configuration for the file: its tests run in one worker, in order.
test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ e2e }) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (the admin CLI reaches it through its data directory)");
  idp = await startTestIdp({ redirectUris: [`${e2e.baseURL}/session/sso/callback`] });
  const set = adminCli(e2e, [
    "people",
    "sso",
    "set",
    "--group",
    e2e.people.viewer.organization,
    "--issuer",
    idp.issuer,
    "--client-id",
    idp.clientId,
    "--client-secret",
    idp.clientSecret,
    "--domain",
    DOMAIN,
  ]);
  expect(set).toMatchObject({ domains: [DOMAIN], defaultRole: "viewer", clientSecret: "set" });
  expect(JSON.stringify(set)).not.toContain(idp.clientSecret);
});

test.afterAll(async ({ e2e }) => {
  if (!idp) return;
  adminCli(e2e, ["people", "sso", "remove", "--group", e2e.people.viewer.organization]);
  await idp.close();
});

async function signInWithSso(page: import("@playwright/test").Page, email: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "Sign in with SSO" }).click();
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue with SSO" }).click();
}

test("a person of the organization's domain signs in over OIDC and lands signed in as a viewer", async ({
  page,
  e2e,
}) => {
  const email = `dana-${Date.now()}@${DOMAIN}`;
  idp.addAccount({ sub: `dana-${Date.now()}`, email, emailVerified: true, name: "Dana" });
  await signInWithSso(page, email);
  await page.waitForURL((url) => url.origin === e2e.baseURL && !url.pathname.startsWith("/sign-in"));
  await expect(page.locator("header")).toContainText("Customer viewer");
  await screenshot(page, "sso-signed-in");
  const calls = await page.request.get("/v1/calls?pageSize=5");
  expect(calls.status()).toBe(200);
  expect(await calls.text()).not.toMatch(/buyCost|margin/);
});

test("an email the provider has not verified is refused, and no session is made", async ({ page, e2e }) => {
  const email = `erin-${Date.now()}@${DOMAIN}`;
  idp.addAccount({ sub: `erin-${Date.now()}`, email, emailVerified: false });
  await signInWithSso(page, email);
  await page.waitForURL((url) => url.origin === e2e.baseURL && url.pathname.startsWith("/sign-in"));
  await expect(page.locator("main").getByRole("alert")).toContainText("has not verified your email");
  await screenshot(page, "sso-unverified");
  // The SSO form, with its error, has no serious or critical accessibility findings.
  expect(await seriousFindings(page)).toEqual([]);
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain("cb_session");
});
