import { adminCli, apiMicros, displayedMicros, expect, roundedMicros, screenshot, test } from "./fixtures";

// The operator console (README "Operator console"): the demo's platform admin creates an account, tops it up and
// sets its credit limit from the browser; then tops up an existing demo account, whose customer sees the new balance.

interface AccountJson {
  id: string;
  name: string;
  balance: number;
  currency: string;
}

test("platform staff create an account, top it up and set its credit limit; a customer sees the topped-up balance", async ({
  page,
  browser,
  playwright,
  e2e,
  signInAs,
  api,
}) => {
  test.skip(!e2e.dataDir, "adds a customer person with the admin CLI: needs the suite's own server");
  await signInAs("platform");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" }).click();
  await page.waitForURL("**/console/accounts");
  await expect(page.locator("[data-account-id]").first()).toBeVisible();
  await screenshot(page, "console-accounts");

  // A new account. Its name sorts between the demo's accounts, neither first, second nor last, and its currency is the
  // first account's (other specs pick those, and the first account of another currency).
  const name = `Hooli Console ${Date.now()}`;
  await page.getByRole("link", { name: "New account" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel(/^Currency/).selectOption("USD");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/console\/accounts\/bg_/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  const summary = page.getByTestId("account-summary");
  await expect(summary.locator('[data-field="balance"]')).toHaveText("$0.00");

  const topUp = page.getByTestId("topup-form");
  await topUp.getByLabel(/^Amount/).fill("25.50");
  await topUp.getByLabel(/^Reference/).fill("Wire 1");
  // Clicked twice quickly: one Idempotency-Key, one top-up.
  await topUp.getByRole("button", { name: "Top up" }).dblclick();
  await expect(topUp.getByTestId("change-done")).toHaveText("Topped up $25.50: the balance is $25.50.");
  await expect(summary.locator('[data-field="balance"]')).toHaveText("$25.50");

  const limit = page.getByTestId("credit-limit-form");
  await limit.getByLabel(/^Credit limit/).fill("10");
  await limit.getByRole("button", { name: "Save credit limit" }).click();
  await expect(summary.locator('[data-field="credit limit"]')).toHaveText("$10.00");

  // A bad amount: the answer names the field.
  await topUp.getByLabel(/^Amount/).fill("-3");
  await topUp.getByRole("button", { name: "Top up" }).click();
  await expect(topUp.getByRole("alert")).toBeVisible();
  await expect(topUp.getByLabel(/^Amount/)).toHaveAttribute("aria-invalid", "true");

  // Disable, after a confirmation, and enable again.
  await page.getByRole("button", { name: "Disable…" }).click();
  await page.getByRole("button", { name: "Yes, disable" }).click();
  await expect(summary.locator('[data-field="status"]')).toHaveText("Disabled by an operator");
  await page.getByRole("button", { name: "Enable…" }).click();
  await page.getByRole("button", { name: "Yes, enable" }).click();
  await expect(summary.locator('[data-field="status"]')).toHaveText("Enabled");
  await screenshot(page, "console-account");
  const id = new URL(page.url()).pathname.split("/").pop()!;
  // Its decks, thresholds and webhooks are a click away, on the pages that take the account from the URL.
  const elsewhere = page.getByRole("navigation", { name: "This account elsewhere" });
  await expect(elsewhere.getByRole("link", { name: "Rate decks" })).toHaveAttribute(
    "href",
    `/rate-decks?account=${id}`,
  );
  await expect(elsewhere.getByRole("link", { name: "Thresholds and webhooks" })).toHaveAttribute(
    "href",
    `/alerts?account=${id}`,
  );

  // A key for this account (not for the platform): it reads this account's balance.
  const keys = page.getByRole("region", { name: "API keys of this account" });
  await keys.getByLabel("Name").fill("CRM link");
  await keys.getByRole("button", { name: "Create key" }).click();
  const secret = (await keys.getByTestId("new-key-secret").textContent())!;
  const client = await playwright.request.newContext({
    baseURL: e2e.baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${secret}` },
  });
  expect(await (await client.get("/v1/balances")).json()).toMatchObject({ billingGroupId: id, balance: 25.5 });
  await client.dispose();
  await keys.getByRole("button", { name: "Done" }).click();
  await expect(keys.locator("tr", { hasText: "CRM link" })).toBeVisible();

  const made = await api<AccountJson>("platform", `/v1/accounts/${id}`);
  expect(made).toMatchObject({ name, balance: 25.5, currency: "USD" });

  // The overview finds it by name, with its balance.
  await page.goto("/console/accounts");
  await page.getByTestId("accounts-search").fill(name);
  const row = page.locator(`[data-account-id="${id}"]`);
  await expect(row).toBeVisible();
  await expect(row.locator('[data-column="balance"]')).toHaveText("$25.50");
  await expect(page.locator("[data-account-id]")).toHaveCount(1);

  // An existing demo account: staff top it up; its customer sees the new balance.
  const { accounts } = await api<{ accounts: AccountJson[] }>("platform", "/v1/accounts");
  const hooli = accounts.find((a) => a.name === "Hooli Startups Inc")!;
  const email = `hooli-viewer-${Date.now()}@example.com`;
  adminCli(
    e2e,
    ["people", "add", "--email", email, "--name", "Hugo Hooli", "--role", "viewer", "--group", hooli.id].concat([
      "--password",
      "hooli password 1",
    ]),
  );
  await page.goto(`/console/accounts/${hooli.id}`);
  await page
    .getByTestId("topup-form")
    .getByLabel(/^Amount/)
    .fill("7.25");
  await page.getByTestId("topup-form").getByRole("button", { name: "Top up" }).click();
  await expect(page.getByTestId("topup-form").getByTestId("change-done")).toContainText(
    "Topped up $7.25: the balance is $",
  );
  const after = await api<AccountJson>("platform", `/v1/accounts/${hooli.id}`);
  expect(apiMicros(after.balance)).toBeGreaterThanOrEqual(apiMicros(hooli.balance) + 7_250_000n);

  const customer = await browser.newPage({ baseURL: e2e.baseURL });
  await customer.goto("/sign-in");
  await customer.getByLabel("Email").fill(email);
  await customer.getByLabel("Password").fill("hooli password 1");
  await customer.getByRole("button", { name: "Sign in", exact: true }).click();
  await customer.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await customer.goto("/");
  await expect(customer.getByTestId("balance-amount")).toBeVisible();
  expect(displayedMicros(await customer.getByTestId("balance-amount").innerText())).toBe(
    roundedMicros(apiMicros(after.balance), 2),
  );
  await screenshot(customer, "console-customer-balance");
  await customer.context().close();
});
