import type { Page } from "@playwright/test";
import { allCalls, apiMicros, displayedMicros, expect, screenshot, test } from "./fixtures";

import { readState } from "./state";

// The operator's cost view (buy costs, suppliers, margins over them) is the platform's only since issue 32 (docs/
// contract.md §21): the demo's reseller key and owner ("cost"), bound to an account, read their own tier's figures.
// The tests of that view sign in as staff, on the reseller's account (MAIN), where the reseller's used to look.
const MAIN = readState().keys.cost.billingGroupId!;

// The reseller's questions (buy rate and margin, destinations by name, suppliers), layouts that fit a 1440 px
// screen and a phone, one account followed across pages, and the smaller fixes of the portal pass.

interface UsageRow {
  key: string | null;
  label: string | null;
  currency: string;
  calls: number;
  price: number;
  margin?: number;
}

test("destinations grouped by name, drilled down to prefixes and suppliers; margin charts", async ({
  page,
  signIn,
  api,
}) => {
  const usage = await api<{ rows: UsageRow[] }>(
    "platform",
    `/v1/usage?groupBy=destination&timeZone=America/New_York&account=${MAIN}`,
  );
  const names = new Set(usage.rows.map((r) => (r.key === null ? "Unrated (no rate matched)" : r.label || r.key)));
  expect(names.size, "several prefixes share a name in the demo deck").toBeLessThan(usage.rows.length);
  await signIn("platform");
  await page.goto(`/reports?groupBy=destination&from=&until=&account=${MAIN}`);
  // Long reports show their first 50 rows, the rest on request.
  await expect(page.getByTestId("report-row")).toHaveCount(Math.min(50, names.size));
  if (names.size > 50) await page.getByTestId("report-show-all").click();
  await expect(page.getByTestId("report-row")).toHaveCount(names.size);
  // One row per name: the one with the most prefixes, opened, lists them and the suppliers that carried it.
  const byName = new Map<string, UsageRow[]>();
  for (const r of usage.rows) if (r.label) byName.set(r.label, [...(byName.get(r.label) ?? []), r]);
  const [name, prefixes] = [...byName].sort((a, b) => b[1].length - a[1].length)[0];
  const row = page.getByTestId("report-row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  const total = prefixes.reduce((n, r) => n + r.calls, 0);
  await expect(row.locator('td[data-column="calls"]')).toHaveText(total.toLocaleString("en-US"));
  await row.getByTestId("destination-open").click();
  const drill = page.getByTestId("destination-drilldown");
  await expect(drill.getByTestId("drilldown-prefixes").locator("tbody tr")).toHaveCount(prefixes.length);
  const suppliers = drill.getByTestId("drilldown-suppliers").locator("tbody tr");
  await expect(suppliers.first()).toBeVisible();
  await expect(drill.getByTestId("drilldown-suppliers")).toContainText(/Northwind Carrier Services|Blue Ocean Voice/);
  const supplierCalls = (await suppliers.locator("td:nth-child(2)").allInnerTexts()).map((t) =>
    Number(t.replace(/,/g, "")),
  );
  expect(supplierCalls.reduce((a, b) => a + b, 0)).toBe(total);
  await screenshot(page, "reports-destination-drilldown");

  // Revenue is called revenue, and the chart can show margin and margin %.
  await expect(
    page.getByTestId("report-table").getByRole("columnheader", { name: "Revenue", exact: true }),
  ).toBeVisible();
  await page.getByLabel("Chart").selectOption("marginPercent");
  await expect(page.getByTestId("report-chart").first()).toContainText("Margin %");
  await expect(page.getByTestId("report-bar").first()).toContainText("%");
  await page.getByLabel("Chart").selectOption("margin");
  await expect(page.getByTestId("report-chart").first()).toContainText("Margin in USD");
});

test("the rate calculator of a cost session shows buy rates and the margin of the call", async ({
  page,
  signIn,
  api,
}) => {
  const { calls } = await api<{ calls: { to: string; rated: boolean; supplierId?: string | null }[] }>(
    "platform",
    `/v1/calls?pageSize=100&direction=outbound&billingGroupId=${MAIN}`,
  );
  const destination = calls.find((c) => c.rated && c.supplierId)!.to;
  const rate = await api<{ sellRate: number; description: string | null }>(
    "cost",
    `/v1/rates?destination=${destination}`,
  );
  await signIn("platform");
  await page.goto(`/rates?destination=${destination}&seconds=60&account=${MAIN}`);
  await expect(page.getByTestId("rate-destination")).toContainText(`+${destination}`);
  if (rate.description) await expect(page.getByTestId("rate-destination")).toContainText(rate.description);
  // Rates keep their 6 decimals.
  await expect(page.getByTestId("rate-sell")).toHaveText(/\.\d{6}\/min$/);
  const rows = page.getByTestId("buy-rate-row");
  await expect(rows.first()).toBeVisible();
  const revenue = displayedMicros(await page.getByTestId("rate-cost").innerText());
  const cost = displayedMicros(await rows.first().getByTestId("buy-cost").innerText());
  expect(displayedMicros(await rows.first().getByTestId("buy-margin").innerText())).toBe(revenue - cost);
  await screenshot(page, "rate-calculator-cost");

  // A customer's key gets no buy rates at all.
  await page.context().clearCookies();
  await signIn("read");
  await page.goto(`/rates?destination=${destination}&seconds=60`);
  await expect(page.getByTestId("rate-sell")).toBeVisible();
  await expect(page.getByTestId("buy-rates")).toHaveCount(0);
  expect(apiMicros(rate.sellRate)).toBeGreaterThan(0n);
});

test("call log: supplier filter, columns chosen and kept, first rows from the server's small first page", async ({
  page,
  signIn,
  api,
}) => {
  const [calls] = await Promise.all([allCalls(api, "platform", `billingGroupId=${MAIN}`), signIn("platform")]);
  // The call log's pages only: the dashboard's latest calls (signing in lands there) are in before counting.
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toBeAttached();
  const sizes: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/v1/calls") sizes.push(url.searchParams.get("pageSize") ?? "");
  });
  await page.goto(`/calls?account=${MAIN}`);
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  // The small first page came with the page's HTML (e2e/first-screen.spec.ts); scrolling on asks for larger pages only.
  await page.getByTestId("call-log-scroll").evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await expect.poll(() => sizes.includes("500")).toBe(true);
  expect(sizes).not.toContain("50");

  // At 1440 px every default column fits: margin and supplier are in view, no sideways scroll.
  const scroll = page.getByTestId("call-log-scroll");
  expect(await scroll.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await expect(page.getByRole("columnheader", { name: "Supplier" })).toBeInViewport();

  // The supplier filter.
  const supplierId = calls.find((c) => c.supplierId)!.supplierId!;
  await page.getByLabel("Supplier").selectOption(supplierId);
  await expect.poll(() => new URL(page.url()).searchParams.get("supplier")).toBe(supplierId);
  const carried = calls.filter((c) => c.supplierId === supplierId);
  await expect(page.getByTestId("call-totals").getByTestId("totals-calls")).toHaveText(
    carried.length.toLocaleString("en-US"),
  );
  const supplierName = await page.getByLabel("Supplier").locator("option:checked").innerText();
  for (const cell of await page.locator('td[data-column="supplierId"]').allInnerTexts())
    expect(cell).toBe(supplierName);

  // Columns: hide Direction, show Hangup cause; kept after a reload.
  await page.getByRole("button", { name: "Columns" }).click();
  await page.getByRole("checkbox", { name: "Direction" }).uncheck();
  await page.getByRole("checkbox", { name: "Hangup cause" }).check();
  await page.reload();
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Hangup cause" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Direction" })).toHaveCount(0);
  await screenshot(page, "call-log-columns-chosen");
});

test("Enter applies a typed hangup cause", async ({ page, signIn, api }) => {
  const [calls] = await Promise.all([allCalls(api, "read"), signIn("read")]);
  // A cause that is not among the suggestions, so only Enter can apply it.
  const cause = ["NO_USER_RESPONSE", "NORMAL_CIRCUIT_CONGESTION"].find((c) => calls.some((x) => x.hangupCause === c))!;
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await page.getByRole("combobox", { name: "Hangup cause" }).fill(cause.toLowerCase());
  await page.getByRole("combobox", { name: "Hangup cause" }).press("Enter");
  await expect.poll(() => new URL(page.url()).searchParams.get("cause")).toBe(cause);
  await expect(page.getByTestId("call-totals").getByTestId("totals-calls")).toHaveText(
    calls.filter((c) => c.hangupCause === cause).length.toLocaleString("en-US"),
  );
});

test("a deep link survives sign-in with its query string", async ({ page, e2e }) => {
  const wanted = "/reports?groupBy=destination&from=2026-01-01&until=2026-01-31";
  await page.goto(wanted);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  expect(new URL(page.url()).searchParams.get("next")).toBe(wanted);
  await page.getByLabel("API key").fill(e2e.keys.read.key);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await page.waitForURL((url) => url.pathname === "/reports");
  expect(new URL(page.url()).search).toBe(new URL(wanted, "http://x").search);
  await expect(page.getByLabel("Group by")).toHaveValue("destination");
});

test("the account chosen on the dashboard is the one the other pages show", async ({ page, signIn, api }) => {
  const { accounts } = await api<{ accounts: { id: string; name: string }[] }>("platform", "/v1/accounts");
  const chosen = accounts[accounts.length - 1];
  await signIn("platform");
  await page.getByLabel("Account", { exact: true }).selectOption(chosen.id);
  await page.waitForURL((url) => url.searchParams.get("account") === chosen.id);
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const [link, path] of [
    ["Rates", "/rates"],
    ["Calls", "/calls"],
    ["Reports", "/reports"],
  ]) {
    await nav.getByRole("link", { name: link }).click();
    await page.waitForURL((url) => url.pathname === path);
    expect(new URL(page.url()).searchParams.get("account")).toBe(chosen.id);
    await expect(page.getByRole("combobox", { name: "Account", exact: true })).toHaveValue(chosen.id);
  }
});

test("phone: the dashboard's latest calls and the report rows show their amounts", async ({ page, signIn }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn("platform");
  await page.goto(`/?account=${MAIN}`);
  const cards = page.getByTestId("latest-call-card");
  await expect(cards.first()).toBeVisible();
  await expect(cards.first()).toContainText(/\$\d|Unrated/);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await screenshot(page, "dashboard-phone");
  await page.goto(`/reports?groupBy=destination&account=${MAIN}`);
  const rows = page.getByTestId("report-card");
  await expect(rows.first()).toBeVisible();
  await expect(rows.first()).toContainText(/\$\d/);
  await expect(rows.first()).toContainText("Margin");
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await screenshot(page, "reports-phone");
});

/** The main navigation's links: how many, and on how many rows; and the first link's top against the logo's. */
async function navLayout(page: Page) {
  const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
  await expect(links.first()).toBeVisible();
  const tops = await links.evaluateAll((all) => all.map((a) => Math.round(a.getBoundingClientRect().top)));
  const logo = (await page.getByRole("link", { name: "Callbook" }).boundingBox())!;
  return { count: tops.length, rows: new Set(tops).size, belowLogo: tops[0] - logo.y };
}

test("desktop: staff's many links take one row of their own below the logo", async ({ page, signIn }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn("platform");
  const staff = await navLayout(page);
  expect(staff.count).toBeGreaterThan(8);
  expect(staff.rows, "the platform's links wrap").toBe(1);
  expect(staff.belowLogo).toBeGreaterThan(20);
  await screenshot(page, "header-platform-desktop");
});

test("desktop: a customer's few links stay beside the logo, in one row", async ({ page, signIn }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn("read");
  const customer = await navLayout(page);
  expect(customer.rows).toBe(1);
  expect(Math.abs(customer.belowLogo)).toBeLessThan(12);
});
