import { allCalls, apiMicros, displayedMicros, expect, roundedMicros, screenshot, test } from "./fixtures";

test("dashboard: balance, 30 days of spend and the latest calls", async ({ page, signIn, api }) => {
  const [balance, calls, own] = await Promise.all([
    api<{ billingGroupId: string; balance: number; currency: string; disabled: boolean }>("read", "/v1/balances"),
    allCalls(api, "read"),
    api<{ accounts: { id: string; name: string }[] }>("read", "/v1/accounts"),
    signIn("read"),
  ]);
  await page.goto("/");
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  // Balances show the currency's own decimals (USD/EUR: 2), rounded from the exact amount.
  expect(displayedMicros(await page.getByTestId("balance-amount").innerText())).toBe(
    roundedMicros(apiMicros(balance.balance), 2),
  );

  // The chart's total is the sum of the prices of the last 30 UTC days, in the currency's decimals.
  const now = new Date();
  const since = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 29 * 86_400_000;
  const total = calls.filter((c) => Date.parse(c.startTime) >= since).reduce((sum, c) => sum + apiMicros(c.price), 0n);
  const figure = page.getByTestId(`spend-${balance.currency}`);
  await expect(figure.locator("li")).toHaveCount(30);
  expect(displayedMicros(await figure.locator("figcaption span").last().innerText())).toBe(roundedMicros(total, 2));

  const latest = page.getByTestId("latest-calls").locator("tbody tr");
  await expect(latest).toHaveCount(8);
  await expect(latest.first()).toContainText(calls[0].to);

  // The balance names the account (its id on hover), and no id is text a person reads.
  const name = own.accounts.find((a) => a.id === balance.billingGroupId)?.name ?? "";
  expect(name).not.toBe("");
  await expect(page.getByTestId("balance-account")).toHaveText(name);
  await expect(page.getByTestId("balance-account")).toHaveAttribute("title", balance.billingGroupId);
  expect(await page.getByRole("main").innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
  await screenshot(page, "dashboard");
});

test("platform session: account switcher shows the chosen group's balance", async ({ page, signIn, api }) => {
  const { accounts } = await api<{ accounts: { id: string; name: string; balance: number; currency: string }[] }>(
    "platform",
    "/v1/accounts",
  );
  expect(accounts.length).toBeGreaterThan(1);
  await signIn("platform");
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  const other = accounts[accounts.length - 1];
  await page.getByLabel("Account", { exact: true }).selectOption(other.id);
  await expect(page.getByTestId("balance-account")).toHaveText(other.name);
  await expect(page.getByTestId("balance-account")).toHaveAttribute("title", other.id);
  await expect(page.getByTestId("balance-widget")).not.toContainText(other.id);
  expect(displayedMicros(await page.getByTestId("balance-amount").innerText())).toBe(
    roundedMicros(apiMicros(other.balance), 2),
  );
  await screenshot(page, "dashboard-platform");
});

test("phone width: the call log stays usable", async ({ page, signIn }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn("cost");
  await page.goto("/calls");
  // A card per call at phone width, not a table to scroll sideways.
  await expect(page.getByTestId("call-card").first()).toBeVisible();
  await expect(page.locator("tr[data-call-id]")).toHaveCount(0);
  // No page-level horizontal scrolling.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await screenshot(page, "call-log-phone");
});

test("signing out ends the session; portal pages and /v1 then refuse it", async ({ page, signIn }) => {
  await signIn("read");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL("**/sign-in?signedOut=1");
  await page.goto("/calls");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fcalls/);
  const r = await page.request.get("/v1/balances");
  expect(r.status()).toBe(401);
});
