import { seriousFindings } from "./axe";
import { apiMicros, displayedMicros, expect, roundedMicros, screenshot, test } from "./fixtures";
import { readState, type DemoPerson } from "./state";

// A reseller's console (issue 32 item 5, docs/contract.md §19 and "Reseller tiers"): the demo's "Tiered Reseller Ltd"
// owner (lib/demo/demo-tiers.ts) opens the console on its subtree, creates a customer and tops it up from its own
// balance; a top-up past its balance plus credit limit is refused in place. Its customer's owner has no console.

interface AccountJson {
  id: string;
  name: string;
  balance: number;
  currency: string;
  parentId: string | null;
}

function demoPeople() {
  return readState().people as unknown as Record<"tierReseller" | "tierCustomer", DemoPerson>;
}

/** Micro-units as the API's decimal text ("12.5"), exact. */
function decimalOf(micros: bigint): string {
  const whole = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

test("a reseller's console: its subtree only, a new customer topped up from its own balance, too much refused", async ({
  page,
  signInAs,
}) => {
  await signInAs(demoPeople().tierReseller);
  const ownBalance = async () =>
    (await (await page.request.get("/v1/balances")).json()) as { billingGroupId: string; balance: number };
  const before = await ownBalance();
  const own = before.billingGroupId;

  // The header's link opens the console; its list is the session's reach (GET /v1/accounts with the same session).
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" }).click();
  await page.waitForURL("**/console/accounts");
  await expect(page.locator("[data-account-id]").first()).toBeVisible();
  const reach = (await (await page.request.get("/v1/accounts")).json()) as { accounts: AccountJson[] };
  const reachIds = reach.accounts.map((a) => a.id).sort();
  expect(reachIds).toContain(own);
  expect(reachIds.length).toBeGreaterThan(1);
  await expect(async () => {
    const shown = await page
      .locator("[data-account-id]")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-account-id")));
    expect([...new Set(shown)].sort()).toEqual(reachIds);
  }).toPass();
  // Not the operator's other customers (the demo's main account, the read key's).
  const other = readState().keys.read.billingGroupId!;
  expect(reachIds).not.toContain(other);
  await expect(page.locator(`[data-account-id="${other}"]`)).toHaveCount(0);
  await screenshot(page, "reseller-console-accounts");

  // Its own account is shown, not changeable here.
  await page.goto(`/console/accounts/${own}`);
  await expect(page.getByTestId("own-account-note")).toBeVisible();
  await expect(page.getByTestId("topup-form")).toHaveCount(0);
  // Its credit limit (GET /v1/accounts/{id} does not carry it): the summary's, in whole cents.
  const ownLimit = displayedMicros(
    await page.getByTestId("account-summary").locator('[data-field="credit limit"]').innerText(),
  );

  // A new customer, in the reseller's currency, below its own account.
  await page.goto("/console/accounts");
  await page.getByRole("link", { name: "New customer" }).click();
  await expect(page.getByTestId("new-customer-currency")).toContainText("USD");
  await expect(page.getByLabel(/accountcode/i)).toHaveCount(0);
  await expect(page.getByLabel(/opening balance/i)).toHaveCount(0);
  const name = `Reseller Console Customer ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create customer" }).click();
  await page.waitForURL(/\/console\/accounts\/bg_/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
  const id = new URL(page.url()).pathname.split("/").pop()!;
  const created = (await (await page.request.get(`/v1/accounts/${id}`)).json()) as AccountJson;
  expect(created).toMatchObject({ parentId: own, currency: "USD", balance: 0 });
  // Its customer's sell decks are linked (its subtree's, e2e/reseller-portal.spec.ts); the suppliers' decks are not.
  await expect(page.getByRole("link", { name: "Rate decks" }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Supplier decks" })).toHaveCount(0);

  // A top-up says where the money comes from, moves it from the reseller to the customer.
  const topUp = page.getByTestId("topup-form");
  await expect(page.getByTestId("topup-funder")).toContainText("your own balance");
  await topUp.getByLabel(/^Amount/).fill("12.50");
  await topUp.getByRole("button", { name: "Top up" }).click();
  await expect(topUp.getByTestId("change-done")).toHaveText("Topped up $12.50: the balance is $12.50.");
  const after = await ownBalance();
  expect(apiMicros(after.balance)).toBe(apiMicros(before.balance) - 12_500_000n);
  const customer = (await (await page.request.get(`/v1/accounts/${id}`)).json()) as AccountJson;
  expect(apiMicros(customer.balance)).toBe(12_500_000n);

  // More than its balance plus credit limit: refused in place, in words, with what it has; nothing moved.
  const available = apiMicros(after.balance) + ownLimit;
  await topUp.getByLabel(/^Amount/).fill(decimalOf(available + 1_000_000n));
  await topUp.getByRole("button", { name: "Top up" }).click();
  const amount = topUp.getByLabel(/^Amount/);
  await expect(amount).toHaveAttribute("aria-invalid", "true");
  await expect(topUp).toContainText("More than you have");
  await expect(topUp.getByRole("alert")).toHaveText(/more than your balance plus your credit limit/);
  const shownAvailable = await topUp.getByText(/More than you have/).innerText();
  // Exact, never rounded up: a person is never told of money they do not have.
  expect(displayedMicros(shownAvailable.replace(/^[^$]*/, ""))).toBe(available);
  expect(apiMicros((await ownBalance()).balance)).toBe(apiMicros(after.balance));
  for (const [width, height, suffix] of [
    [1440, 900, ""],
    [390, 844, "-phone"],
  ] as const) {
    await page.setViewportSize({ width, height });
    await topUp.scrollIntoViewIfNeeded();
    await screenshot(page, `reseller-console-topup-refused${suffix}`);
    expect(await seriousFindings(page), `/console/accounts/${id} at ${width}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // The dashboard's balance widget shows the reseller's own balance, lower by the top-up.
  await page.goto("/");
  await expect(async () => {
    const shown = displayedMicros(await page.getByTestId("balance-amount").innerText());
    expect(shown).toBe(roundedMicros(apiMicros(after.balance), 2));
  }).toPass();

  await page.goto("/console/accounts");
  await expect(page.locator(`[data-account-id="${id}"]`).first()).toBeVisible();
  for (const [width, height, suffix] of [
    [1440, 900, ""],
    [390, 844, "-phone"],
  ] as const) {
    await page.setViewportSize({ width, height });
    await screenshot(page, `reseller-console-accounts${suffix}`);
    expect(await seriousFindings(page), `/console/accounts at ${width}`).toEqual([]);
  }
});

test("a reseller's customer (no customers of its own) has no console", async ({ page, signInAs }) => {
  await signInAs(demoPeople().tierCustomer);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" })).toHaveCount(0);
  const response = await page.goto("/console/accounts");
  expect(response?.status()).toBe(404);
  expect((await page.goto("/console/accounts/new"))?.status()).toBe(404);
});
