import fs from "node:fs";
import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import {
  allCalls,
  apiMicros,
  displayedMicros,
  expect,
  renderedRows,
  roundedMicros,
  screenshot,
  test,
  type CallJson,
} from "./fixtures";

interface AccountJson {
  id: string;
  name: string;
  balance: number;
  currency: string;
}

test("platform call log: an account column, an account filter, and the CSV of that filter", async ({
  page,
  signIn,
  api,
}) => {
  const [{ accounts }] = await Promise.all([
    api<{ accounts: AccountJson[] }>("platform", "/v1/accounts"),
    signIn("platform"),
  ]);
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Account" })).toBeVisible();
  let rows = await renderedRows(page);
  expect(new Set(rows.map((r) => r.cells.account)).size).toBeGreaterThan(1);
  for (const r of rows) expect([...names.values()]).toContain(r.cells.account);

  const chosen = accounts[1];
  await page.getByLabel("Account", { exact: true }).selectOption(chosen.id);
  await expect.poll(() => new URL(page.url()).searchParams.get("account")).toBe(chosen.id);
  await expect
    .poll(async () => new Set((await renderedRows(page)).map((r) => r.cells.account)))
    .toEqual(new Set([chosen.name]));
  rows = await renderedRows(page);
  const expected = await allCalls(api, "platform", `billingGroupId=${chosen.id}`);
  expect(rows.map((r) => r.id)).toEqual(expected.slice(0, rows.length).map((c) => c.id));
  await screenshot(page, "platform-call-log-account");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  const lines = fs
    .readFileSync(await download.path(), "utf8")
    .trimEnd()
    .split("\r\n");
  const header = lines[0].split(",");
  const col = header.indexOf("billingGroupId");
  expect(col).toBeGreaterThan(0);
  expect(lines.length - 1).toBe(expected.length);
  for (const line of lines.slice(1)) expect(line.split(",")[col]).toBe(chosen.id);
});

test("platform dashboard: spend and latest calls follow the account switcher", async ({ page, signIn, api }) => {
  const [{ accounts }] = await Promise.all([
    api<{ accounts: AccountJson[] }>("platform", "/v1/accounts"),
    signIn("platform"),
  ]);
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  const chosen = accounts.find((a) => a.currency !== accounts[0].currency) ?? accounts[accounts.length - 1];
  await page.getByLabel("Account", { exact: true }).selectOption(chosen.id);
  await page.waitForURL((url) => url.searchParams.get("account") === chosen.id);
  await expect(page.getByTestId("balance-account")).toHaveText(chosen.name);
  await expect(page.getByTestId("balance-account")).toHaveAttribute("title", chosen.id);

  const calls = await allCalls(api, "platform", `billingGroupId=${chosen.id}`);
  const now = new Date();
  const since = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 29 * 86_400_000;
  const total = calls.filter((c) => Date.parse(c.startTime) >= since).reduce((sum, c) => sum + apiMicros(c.price), 0n);
  // One currency: the chosen account's, with its spend only.
  const figure = page.getByTestId(`spend-${chosen.currency}`);
  await expect(figure).toBeVisible();
  await expect(page.locator('[data-testid^="spend-"]')).toHaveCount(1);
  expect(displayedMicros(await figure.locator("figcaption span").last().innerText())).toBe(roundedMicros(total, 2));
  const latest = page.getByTestId("latest-calls").locator("tbody tr");
  await expect(latest.first()).toContainText(calls[0].to);
  await screenshot(page, "dashboard-platform-account");

  // A reload keeps the choice (it is in the URL).
  await page.reload();
  await expect(page.getByLabel("Account", { exact: true })).toHaveValue(chosen.id);
});

test("platform rate calculator: pick an account, get that account's rate", async ({ page, signIn, api, e2e }) => {
  const readGroup = e2e.keys.read.billingGroupId!;
  const { calls } = await api<{ calls: CallJson[] }>("read", "/v1/calls?pageSize=50&direction=outbound");
  const destination = calls.find((c) => c.rated)!.to;
  const rate = await api<{ matchedPrefix: string; sellRate: number; currency: string }>(
    "read",
    `/v1/rates?destination=${destination}`,
  );
  await signIn("platform");
  await page.goto("/rates");
  await page.getByLabel("Account").selectOption(readGroup);
  await page.getByLabel("Destination number").fill(destination);
  await page.getByRole("button", { name: "Look up rate" }).click();
  await expect(page.getByTestId("rate-prefix")).toHaveText(rate.matchedPrefix);
  expect(displayedMicros(await page.getByTestId("rate-sell").innerText())).toBe(apiMicros(rate.sellRate));
  await screenshot(page, "rate-calculator-platform");
});

// Suppliers are the platform's cost view only since issue 32 (docs/contract.md §21).
test("platform cost session: suppliers by name in the log and the call's detail", async ({ page, signIn, api }) => {
  const [calls] = await Promise.all([allCalls(api, "platform", "direction=outbound"), signIn("platform")]);
  const withSupplier = calls.find((c) => c.supplierId)!;
  await page.goto(`/calls?q=${withSupplier.id}&by=id`);
  const row = page.locator(`tr[data-call-id="${withSupplier.id}"]`);
  await expect(row).toBeVisible();
  const cell = row.locator('td[data-column="supplierId"]');
  await expect(cell).toHaveText(/Northwind Carrier Services|Blue Ocean Voice/);
  await expect(cell.locator("span")).toHaveAttribute("title", withSupplier.supplierId!);
  await row.click();
  await expect(page.getByTestId("call-detail")).toContainText(
    /Supplier\s*(Northwind Carrier Services|Blue Ocean Voice)/,
  );
  await screenshot(page, "call-detail-supplier-name");
});

test("platform cost session: a call's own page names its account and its supplier", async ({ page, signIn, api }) => {
  const [{ accounts }, calls] = await Promise.all([
    api<{ accounts: AccountJson[] }>("platform", "/v1/accounts"),
    allCalls(api, "platform", "direction=outbound"),
    signIn("platform"),
  ]);
  const call = calls.find((c) => c.supplierId)!;
  const account = accounts.find((a) => a.id === call.billingGroupId)!;
  await page.goto(`/calls/${call.id}`);
  const detail = page.getByTestId("call-detail");
  await expect(detail).toContainText(`${account.name} (${account.id})`);
  await expect(detail).toContainText(/Supplier\s*(Northwind Carrier Services|Blue Ocean Voice)/);
});

test("platform audit log: the Account column names each account, its id on hover", async ({
  page,
  e2e,
  useSessionOf,
}) => {
  await useSessionOf("platform");
  const { accounts } = (await (await page.request.get("/v1/accounts")).json()) as { accounts: AccountJson[] };
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  // An event of one account on the log's first page: its thresholds set and cleared again (audited changes).
  for (const thresholds of [["1"], []]) {
    const put = await page.request.put("/v1/alert-thresholds", {
      data: { billingGroupId: accounts[0].id, thresholds },
      headers: { origin: new URL(e2e.baseURL).origin },
    });
    expect(put.status()).toBe(200);
  }
  await page.goto("/audit");
  const events = page.getByTestId("audit-events");
  await expect(events.locator("tbody tr[data-event-action]").first()).toBeVisible();
  // Column 5 is the Account: a name (the id in its title) or "Platform"; never an id as text.
  const cells = events.locator("tbody tr[data-event-action] td:nth-child(5)");
  const named = cells.locator("span[title]");
  expect(await named.count()).toBeGreaterThan(0);
  for (const cell of await named.all()) {
    const id = (await cell.getAttribute("title")) ?? "";
    await expect(cell).toHaveText(names.get(id) ?? `unknown account ${id}`);
  }
  expect(await events.innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
  await screenshot(page, "audit-log-platform");
  await expectNoSeriousFindingsAtBothSizes(page);
});
