import { adminCli, expect, test } from "./fixtures";

test("the session cookie is signed, httpOnly and Lax, never the key; revoking the key ends the session", async ({
  page,
  signIn,
  e2e,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (its data directory) to revoke a key");
  const created = adminCli(e2e, [
    "keys",
    "create",
    "--scopes",
    "calls:read",
    "--group",
    e2e.keys.read.billingGroupId!,
  ]) as { id: string; key: string };

  await signIn({ key: created.key });
  const [cookie] = await page.context().cookies();
  expect(cookie.name).toBe("cb_session"); // plain http here; __Host- with Secure over https
  expect(cookie.httpOnly).toBe(true);
  expect(cookie.sameSite).toBe("Lax");
  expect(cookie.path).toBe("/");
  expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
  expect(cookie.value).not.toContain(created.key);
  expect(cookie.value).not.toContain(created.key.slice(3, 20));
  expect(await page.evaluate(() => document.cookie)).toBe(""); // not readable by scripts

  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  expect((await page.request.get("/v1/balances")).status()).toBe(200);

  adminCli(e2e, ["keys", "revoke", "--id", created.id]);
  expect((await page.request.get("/v1/balances")).status()).toBe(401);
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fcalls/);
});

test("a wrong key is refused with a message, and no cookie is set", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("API key").fill("ck_not_a_real_key_at_all_0000000000000000");
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("unknown or has been revoked");
  expect(await page.context().cookies()).toEqual([]);
});

test("signing out ends the session on the server: a saved copy of the cookie no longer works", async ({
  page,
  signIn,
  browser,
  e2e,
}) => {
  await signIn("read");
  const [saved] = await page.context().cookies();
  expect(saved.name).toBe("cb_session");
  await page.goto("/calls");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in\?signedOut=1/);
  expect(await page.context().cookies()).toEqual([]);

  // Another browser that kept the cookie (a copy, a second tab's jar) is signed out too.
  const other = await browser.newContext({ baseURL: e2e.baseURL });
  try {
    await other.addCookies([saved]);
    const replay = await other.newPage();
    expect((await replay.request.get("/v1/balances")).status()).toBe(401);
    await replay.goto("/calls");
    await expect(replay).toHaveURL(/\/sign-in\?next=%2Fcalls/);
  } finally {
    await other.close();
  }
});

test("an ingest-only key (cdrs:write) is refused with a message that says why, and no cookie is set", async ({
  page,
  e2e,
}) => {
  expect(e2e.keys.ingest.scopes).toEqual(["cdrs:write"]);
  await page.goto("/sign-in?next=%2F");
  await page.getByLabel("API key").fill(e2e.keys.ingest.key);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText(
    "This key can only send call records (cdrs:write); sign in with a key that can read calls.",
  );
  expect(await page.context().cookies()).toEqual([]);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByText("Platform")).toHaveCount(0);
});
