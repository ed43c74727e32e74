import { expectNoSeriousFindingsAtBothSizes } from "./axe";
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
  // The seeded first deck covers every call of the account: said in words, not as 1970-01-01.
  await expect(page.getByTestId("deck-history")).toContainText("Since the account opened");
  await expect(page.getByTestId("deck-history")).not.toContainText("1970");
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

test("the upload has no default account, and its dry run opens on the changes and their warnings, the rest behind a count", async ({
  page,
  e2e,
  useSessionOf,
}) => {
  const account = e2e.people.viewer.organization;
  await useSessionOf("platform");
  const current = await page.request.get(`/v1/accounts/${account}/rate-decks/current`);
  expect(current.status()).toBe(200);
  const deck = await current.text();
  const { accounts } = (await (await page.request.get("/v1/accounts")).json()) as {
    accounts: { id: string; name: string }[];
  };
  const { suppliers } = (await (await page.request.get("/v1/suppliers")).json()) as {
    suppliers: { id: string; name: string }[];
  };
  const name = accounts.find((a) => a.id === account)!.name;
  // The deck in force against a minimum margin no rate reaches: every prefix a supplier carries warns. Change one.
  const dry = (csv: string) =>
    page.request.post(`/v1/accounts/${account}/rate-decks?dryRun=true&minMargin=99.99`, {
      // A session's change needs its Origin (the browser adds it; this request is the test's own).
      headers: { "content-type": "text/csv", origin: new URL(e2e.baseURL).origin },
      data: csv,
    });
  const answer = await dry(deck);
  expect(answer.status()).toBe(200);
  const all = (await answer.json()) as { marginWarnings: { prefix: string }[]; marginWarningCount: number };
  expect(all.marginWarningCount).toBeGreaterThan(1);
  const prefix = all.marginWarnings[0]!.prefix;
  const lines = deck.trimEnd().split(/\r?\n/);
  const at = lines.findIndex((l) => l.startsWith(`${prefix},`));
  const cells = lines[at]!.split(",");
  cells[1] = cells[1] === "0.999" ? "0.998" : "0.999";
  lines[at] = cells.join(",");
  const changed = `${lines.join("\r\n")}\r\n`;

  // No account is chosen for the person: the preview says why it waits.
  await page.goto("/rate-decks/upload");
  await expect(page.getByLabel("Account")).toHaveValue("");
  const previewButton = page.getByRole("button", { name: "Preview changes" });
  await expect(previewButton).toBeDisabled();
  await expect(page.getByTestId("deck-needs-owner")).toHaveText("Choose the account the deck is for first.");
  await screenshot(page, "rate-decks-upload-no-account");
  await page.getByLabel("Account").selectOption(account);
  await expect(previewButton).toBeEnabled();
  await expect(page.getByTestId("deck-needs-owner")).toHaveCount(0);

  await page
    .getByLabel(/CSV file/)
    .setInputFiles({ name: "deck.csv", mimeType: "text/csv", buffer: Buffer.from(changed) });
  await page.getByLabel(/Warn under this margin/).fill("99.99");
  await previewButton.click();
  const preview = page.getByTestId("deck-preview");
  // The change first, then the warnings of the changed rate; the whole deck's warnings behind their count.
  await expect(preview.getByRole("tab", { name: /^Changed \(1\)/ })).toHaveAttribute("aria-selected", "true");
  await expect(preview.getByRole("table", { name: "Changed prefixes" })).toContainText(prefix);
  await preview.getByRole("tab", { name: /^Margin warnings on changes/ }).click();
  const onChanges = preview.getByRole("table", { name: "Margin warnings on changes" });
  const rows = onChanges.locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  const n = await rows.count();
  for (let i = 0; i < n; i++) await expect(rows.nth(i).locator("td").first()).toHaveText(prefix);
  const total = ((await (await dry(changed)).json()) as { marginWarningCount: number }).marginWarningCount;
  const others = preview.getByTestId("deck-other-warnings");
  await expect(others.locator("summary")).toHaveText(
    `${(total - n).toLocaleString("en")} more warnings on unchanged rates`,
  );
  await expect(preview.getByRole("table", { name: "Margin warnings on unchanged rates" })).toBeHidden();
  await screenshot(page, "rate-decks-changes-first");

  // Opened, the rest name the account and the supplier, their ids on hover.
  await others.locator("summary").click();
  const rest = preview.getByRole("table", { name: "Margin warnings on unchanged rates" });
  const first = rest.locator("tbody tr").first();
  await expect(first.locator("td").nth(1)).toHaveText(name);
  await expect(first.locator("td").nth(1).locator("span")).toHaveAttribute("title", account);
  const supplierId = await first.locator("td").nth(3).locator("span").getAttribute("title");
  const supplier = suppliers.find((s) => s.id === supplierId);
  expect(supplier).toBeDefined();
  await expect(first.locator("td").nth(3)).toHaveText(supplier!.name);
  expect(await rest.innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
  await screenshot(page, "rate-decks-margin-warnings");
  await expectNoSeriousFindingsAtBothSizes(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await preview.getByRole("tab", { name: /^Changed/ }).scrollIntoViewIfNeeded();
  await screenshot(page, "rate-decks-changes-first-phone");
  // A dry run writes nothing; leave without confirming.
  await preview.getByRole("button", { name: "Cancel" }).click();
});
