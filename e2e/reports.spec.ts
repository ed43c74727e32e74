import fs from "node:fs";
import { allCalls, apiMicros, displayedMicros, expect, roundedMicros, screenshot, test } from "./fixtures";

import { readState } from "./state";

// The operator's cost view (buy costs, suppliers, margins over them) is the platform's only since issue 32 (docs/
// contract.md §21): the demo's reseller key and owner ("cost"), bound to an account, read their own tier's figures.
// The tests of that view sign in as staff, on the reseller's account (MAIN), where the reseller's used to look.
const MAIN = readState().keys.cost.billingGroupId!;

interface UsageJson {
  rows: {
    key: string | null;
    label: string | null;
    currency: string;
    calls: number;
    billedSeconds: number;
    price: number;
    buyCost?: number;
    margin?: number;
  }[];
  totals: {
    currency: string;
    calls: number;
    billedSeconds: number;
    price: number;
    buyCost?: number;
    margin?: number;
  }[];
}

const COST_WORDS = /buyCost|margin|supplierId/;

test("cost session: report by destination with margin, losses marked, sortable, CSV", async ({ page, signIn, api }) => {
  await signIn("platform");
  // Every day: the report's own default is this month.
  await page.goto(`/reports?groupBy=destination&from=&until=&account=${MAIN}`);
  const table = page.getByTestId("report-table");
  await expect(table).toBeVisible();
  const usage = await api<UsageJson>(
    "platform",
    `/v1/usage?groupBy=destination&timeZone=America/New_York&account=${MAIN}`,
  );
  // One row per destination name (the rate card's description), its prefixes added up exactly.
  const groups = new Map<string, { margin: bigint; calls: number }>();
  for (const r of usage.rows) {
    const name = r.key === null ? "Unrated (no rate matched)" : r.label || r.key;
    const g = groups.get(name) ?? { margin: 0n, calls: 0 };
    groups.set(name, { margin: g.margin + apiMicros(r.margin ?? 0), calls: g.calls + r.calls });
  }
  if (groups.size > 50) await page.getByTestId("report-show-all").click();
  await expect(page.getByTestId("report-row")).toHaveCount(groups.size);
  await expect(page.getByRole("columnheader", { name: /Margin/ }).first()).toBeVisible();
  await expect(page.getByTestId("report-chart").locator("li").first()).toBeVisible();

  // Sort by margin, ascending: the worst destination first, marked as a loss.
  const marginHeader = page.getByRole("columnheader", { name: "Margin", exact: true });
  await marginHeader.getByRole("button").click();
  if ((await marginHeader.getAttribute("aria-sort")) === "descending") await marginHeader.getByRole("button").click();
  await expect(marginHeader).toHaveAttribute("aria-sort", "ascending");
  const worst = [...groups.values()].sort((a, b) => (a.margin < b.margin ? -1 : a.margin > b.margin ? 1 : 0))[0];
  const firstRow = page.getByTestId("report-row").first();
  expect(displayedMicros(await firstRow.locator('td[data-column="margin"]').innerText())).toBe(
    roundedMicros(worst.margin, 2),
  );
  if (worst.margin < 0n) {
    await expect(firstRow).toHaveAttribute("data-loss", "true");
    await expect(firstRow.locator('td[data-column="margin"]')).toContainText("▼");
  }
  await screenshot(page, "reports-destination-cost");

  // Totals are the API's, and the same as the calls add up to.
  const total = usage.totals.find((t) => t.currency === "USD") ?? usage.totals[0];
  await expect(page.getByTestId("report-totals")).toContainText(total.calls.toLocaleString("en-US"));

  // The CSV keeps the API's rows, one per prefix.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("report-csv").click()]);
  const csv = fs
    .readFileSync(await download.path(), "utf8")
    .trimEnd()
    .split("\r\n");
  expect(csv[0]).toBe("destination,label,currency,calls,answeredCalls,unratedCalls,billedSeconds,price,buyCost,margin");
  expect(csv).toHaveLength(usage.rows.length + 1);

  await page.getByLabel("Group by").selectOption("supplier");
  await expect(page.getByTestId("report-table")).toContainText(/Northwind Carrier Services|Blue Ocean Voice/);
  await screenshot(page, "reports-supplier-cost");
});

test("calls:read session: the report has no cost columns, and no cost data reaches the page", async ({
  page,
  signIn,
}) => {
  const bodies: { url: string; body: string }[] = [];
  page.on("response", async (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith("/_next/static")) return;
    const type = response.headers()["content-type"] ?? "";
    if (!/json|html|text\/x-component|csv/.test(type)) return;
    bodies.push({ url: response.url(), body: await response.text().catch(() => "") });
  });
  await signIn("read");
  await page.getByRole("link", { name: "Reports" }).click(); // client navigation: an RSC payload
  await expect(page.getByTestId("report-table")).toBeVisible();
  await expect(page.getByLabel("Chart")).toHaveCount(0);
  await expect(page.getByRole("columnheader", { name: /Margin|Buy cost/ })).toHaveCount(0);
  await expect(page.getByLabel("Group by").locator("option", { hasText: "Supplier" })).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("report-table")).toBeVisible();
  const rsc = await page.request.get("/reports", { headers: { RSC: "1" } });
  bodies.push({ url: "RSC /reports", body: await rsc.text() });
  expect(bodies.some((b) => b.url.includes("/v1/usage"))).toBe(true);
  for (const { url, body } of bodies) expect(body, `cost data in ${url}`).not.toMatch(COST_WORDS);
  await screenshot(page, "reports-read");
});

test("call log totals for the current filter; the cost dashboard shows margin", async ({ page, signIn, api }) => {
  const [inbound] = await Promise.all([
    allCalls(api, "platform", `direction=inbound&billingGroupId=${MAIN}`),
    signIn("platform"),
  ]);
  await page.goto(`/calls?direction=inbound&account=${MAIN}`);
  const totals = page.getByTestId("call-totals");
  await expect(totals.getByTestId("totals-calls")).toHaveText(inbound.length.toLocaleString("en-US"));
  const spend = inbound.reduce((s, c) => s + apiMicros(c.price), 0n);
  expect(displayedMicros(await totals.getByTestId("totals-spend").innerText())).toBe(roundedMicros(spend, 2));
  const margin = inbound
    .filter((c) => c.margin !== null && c.margin !== undefined)
    .reduce((s, c) => s + apiMicros(c.margin!), 0n);
  expect(displayedMicros(await totals.getByTestId("totals-margin").innerText())).toBe(roundedMicros(margin, 2));
  await screenshot(page, "call-log-totals-cost");

  const all = await allCalls(api, "platform", `billingGroupId=${MAIN}`);
  const now = new Date();
  const since = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 29 * 86_400_000;
  const recent = all.filter((c) => Date.parse(c.startTime) >= since && c.margin !== null && c.margin !== undefined);
  await page.goto(`/?account=${MAIN}`);
  const shown = page.getByTestId("summary-margin");
  await expect(shown).toBeVisible();
  expect(displayedMicros(await shown.innerText())).toBe(
    roundedMicros(
      recent.reduce((s, c) => s + apiMicros(c.margin!), 0n),
      2,
    ),
  );
  await screenshot(page, "dashboard-cost-margin");
});
