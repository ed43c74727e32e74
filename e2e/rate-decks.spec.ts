import { displayedMicros, expect, screenshot, test } from "./fixtures";

// Platform staff upload a sell deck from the console: the file and its effective-from → the dry run's diff →
// Confirm → the history; then the account's customer sees the new rate in the rate calculator. The new deck is the
// deck in force plus one prefix nobody else dials, so the other specs' rates stay as they were.

const PREFIX = "88817";
const RATE = "0.4321";

test("staff upload a deck, read the diff, confirm; the customer then sees the new rate", async ({
  page,
  browser,
  e2e,
  signInAs,
}) => {
  const account = e2e.people.viewer.organization;
  await signInAs("platform");
  await page.getByRole("link", { name: "Rate decks" }).click();
  await page.waitForURL(/\/rate-decks/);
  await page.getByLabel("Account").selectOption(account);
  await expect(page.getByTestId("deck-history").locator("tr[data-deck-id]").first()).toBeVisible();
  const before = await page.getByTestId("deck-history").locator("tr[data-deck-id]").count();
  await screenshot(page, "rate-decks-history");

  // The deck in force, as the console's download gives it, plus one new prefix.
  const current = await page.request.get(`/v1/accounts/${account}/rate-decks/current`);
  expect(current.status()).toBe(200);
  const csv = `${(await current.text()).trimEnd()}\r\n${PREFIX},${RATE},60/60,E2E island,,\r\n`;

  await page.getByRole("link", { name: "Upload deck" }).click();
  await page.waitForURL(/\/rate-decks\/upload\?account=/);
  await expect(page.getByLabel("Account")).toHaveValue(account);
  await page.getByLabel(/CSV file/).setInputFiles({ name: "deck.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Preview changes" }).click();

  const preview = page.getByTestId("deck-preview");
  await expect(preview).toBeVisible();
  const summary = preview.getByTestId("deck-diff-summary");
  await expect(summary).toContainText("Added1");
  await expect(summary).toContainText("Removed0");
  await expect(summary).toContainText("Changed0");
  await preview.getByRole("tab", { name: /^Added/ }).click();
  const added = preview.getByRole("table", { name: "Added prefixes" });
  await expect(added.locator("tbody tr")).toHaveCount(1);
  await expect(added).toContainText(PREFIX);
  await expect(added).toContainText("E2E island");
  await screenshot(page, "rate-decks-diff");
  // Nothing is written by the preview.
  const listed = await page.request.get(`/v1/accounts/${account}/rate-decks?pageSize=100`);
  expect(((await listed.json()) as { decks: unknown[] }).decks).toHaveLength(before);

  await preview.getByRole("button", { name: "Confirm import" }).click();
  const done = page.getByTestId("deck-imported");
  await expect(done).toContainText("Imported");
  await screenshot(page, "rate-decks-imported");
  await done.getByRole("link", { name: /decks/ }).click();
  await page.waitForURL(/\/rate-decks\?account=/);
  const rows = page.getByTestId("deck-history").locator("tr[data-deck-id]");
  await expect(rows).toHaveCount(before + 1);
  await expect(rows.first().getByTestId("deck-status")).toHaveText("In force");
  await expect(rows.first()).toContainText(e2e.people.platform.email);
  await screenshot(page, "rate-decks-history-after");

  // The customer's own session: the rate calculator finds the new prefix at the new rate.
  const customer = await browser.newContext({ baseURL: e2e.baseURL });
  const other = await customer.newPage();
  await other.goto("/sign-in");
  await other.getByLabel("Email").fill(e2e.people.viewer.email);
  await other.getByLabel("Password").fill(e2e.people.viewer.password);
  await other.getByRole("button", { name: "Sign in", exact: true }).click();
  await other.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await expect(other.getByRole("link", { name: "Rate decks" })).toHaveCount(0);
  expect((await other.goto("/rate-decks"))?.status()).toBe(404);
  await other.goto("/rates");
  await other.getByLabel("Destination number").fill(`${PREFIX}5550100`);
  await other.getByRole("button", { name: "Look up rate" }).click();
  await expect(other.getByTestId("rate-prefix")).toHaveText(PREFIX);
  expect(displayedMicros(await other.getByTestId("rate-sell").innerText())).toBe(432_100n);
  await screenshot(other, "rate-decks-customer-rate");
  await customer.close();
});

test("the dry run's margin warnings name the account and the supplier, their ids on hover", async ({
  page,
  e2e,
  useSessionOf,
}) => {
  const account = e2e.people.viewer.organization;
  await useSessionOf("platform");
  const current = await page.request.get(`/v1/accounts/${account}/rate-decks/current`);
  expect(current.status()).toBe(200);
  const { accounts } = (await (await page.request.get("/v1/accounts")).json()) as {
    accounts: { id: string; name: string }[];
  };
  const { suppliers } = (await (await page.request.get("/v1/suppliers")).json()) as {
    suppliers: { id: string; name: string }[];
  };
  const name = accounts.find((a) => a.id === account)!.name;

  // The deck in force again, with a minimum margin no rate reaches: every prefix a supplier carries warns.
  await page.goto(`/rate-decks/upload?account=${account}`);
  await expect(page.getByLabel("Account")).toHaveValue(account);
  await page.getByLabel(/CSV file/).setInputFiles({
    name: "deck.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(await current.text()),
  });
  await page.getByLabel(/Warn under this margin/).fill("99.99");
  await page.getByRole("button", { name: "Preview changes" }).click();
  const preview = page.getByTestId("deck-preview");
  await expect(preview.getByRole("tab", { name: /^Margin warnings/ })).toHaveAttribute("aria-selected", "true");
  const warnings = preview.getByRole("table", { name: "Margin warnings" });
  const first = warnings.locator("tbody tr").first();
  await expect(first.locator("td").nth(1)).toHaveText(name);
  await expect(first.locator("td").nth(1).locator("span")).toHaveAttribute("title", account);
  const supplierId = await first.locator("td").nth(3).locator("span").getAttribute("title");
  const supplier = suppliers.find((s) => s.id === supplierId);
  expect(supplier).toBeDefined();
  await expect(first.locator("td").nth(3)).toHaveText(supplier!.name);
  expect(await warnings.innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
  await screenshot(page, "rate-decks-margin-warnings");
  // A dry run writes nothing; leave without confirming.
  await preview.getByRole("button", { name: "Cancel" }).click();
});
