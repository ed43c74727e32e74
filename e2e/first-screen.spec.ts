import type { Browser, BrowserContext } from "@playwright/test";
import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import { apiMicros, displayedMicros, expect, roundedMicros, screenshot, test, type CallJson } from "./fixtures";

// Issue 30 item 11: a page's first screen comes from the server (its HTML), not from client fetches after hydration.
// These pages are opened without JavaScript: what shows is what the server sent.

const COST_WORDS = /buyCost|margin|supplierId/;

interface Page50 {
  calls: CallJson[];
  nextPageUrl: string | null;
}

async function withoutJavaScript(
  browser: Browser,
  baseURL: string,
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>>,
): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  await context.addCookies(cookies);
  return context;
}

test("the call log's first rows are in its HTML, filtered as the URL says, without cost fields for a viewer", async ({
  browser,
  baseURL,
  workerSessions,
  api,
}) => {
  const [all, inbound] = await Promise.all([
    api<Page50>("read", "/v1/calls?pageSize=50"),
    api<Page50>("read", "/v1/calls?pageSize=50&direction=inbound"),
  ]);
  expect(all.calls.length).toBeGreaterThan(0);
  expect(inbound.calls.length).toBeGreaterThan(0);
  const context = await withoutJavaScript(browser, baseURL!, await workerSessions("viewer"));
  try {
    const page = await context.newPage();
    const answer = await page.goto("/calls");
    const rows = page.locator("tr[data-call-id]");
    // The newest calls, in the API's order (the window renders the first rows of the page it was given).
    await expect(rows.first()).toBeVisible();
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-call-id")));
    expect(ids).toEqual(all.calls.slice(0, ids.length).map((c) => c.id));
    await expect(page.getByTestId("call-count")).toHaveText(new RegExp(`^${all.calls.length} calls loaded`));
    await screenshot(page, "first-screen-calls-no-js");

    // Neither the HTML nor the RSC payload inside it (nor the router's) names a cost field.
    expect(await answer!.text()).not.toMatch(COST_WORDS);
    const rsc = await page.request.get("/calls", { headers: { RSC: "1" } });
    expect(await rsc.text()).not.toMatch(COST_WORDS);

    // A filter in the URL is read on the server as in the browser: only inbound calls, the API's first ones.
    await page.goto("/calls?direction=inbound");
    await expect(rows.first()).toBeVisible();
    const inboundIds = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-call-id")));
    expect(inboundIds).toEqual(inbound.calls.slice(0, inboundIds.length).map((c) => c.id));
    // (The unfiltered page holds outbound calls too, so the filter changed what the server rendered.)
    expect(all.calls.some((c) => c.direction === "outbound")).toBe(true);
    expect(inbound.calls.every((c) => c.direction === "inbound")).toBe(true);
  } finally {
    await context.close();
  }
});

test("a cost session's first rows carry its cost fields in the same HTML", async ({
  browser,
  baseURL,
  workerSessions,
}) => {
  // The check above could not pass by accident: the same page for a reseller holds them.
  const context = await withoutJavaScript(browser, baseURL!, await workerSessions("reseller"));
  try {
    const page = await context.newPage();
    const answer = await page.goto("/calls");
    await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
    expect(await answer!.text()).toMatch(COST_WORDS);
  } finally {
    await context.close();
  }
});

test("the dashboard's balance and latest calls are in its HTML", async ({ browser, baseURL, workerSessions, api }) => {
  const [balance, latest] = await Promise.all([
    api<{ balance: number }>("read", "/v1/balances"),
    api<Page50>("read", "/v1/calls?pageSize=8"),
  ]);
  const context = await withoutJavaScript(browser, baseURL!, await workerSessions("viewer"));
  try {
    const page = await context.newPage();
    await page.goto("/");
    const amount = page.getByTestId("balance-amount");
    await expect(amount).toBeVisible();
    expect(displayedMicros(await amount.innerText())).toBe(roundedMicros(apiMicros(balance.balance), 2));
    await expect(page.getByTestId("latest-calls").locator("tbody tr")).toHaveCount(latest.calls.length);
    await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toContainText(latest.calls[0].to);
    await screenshot(page, "first-screen-dashboard-no-js");
  } finally {
    await context.close();
  }
});

test("with JavaScript the log starts from the server's page and scrolls on from its cursor", async ({
  page,
  useSessionOf,
}) => {
  await useSessionOf("viewer");
  const asked: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname === "/v1/calls") asked.push(url.search);
  });
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  // The first page is not asked for again; the next one follows the server's page's cursor.
  await expect.poll(() => asked.filter((q) => q.includes("cursor=")).length).toBeGreaterThan(0);
  expect(asked.filter((q) => !q.includes("cursor="))).toEqual([]);
  await expect(page.getByTestId("call-count")).not.toHaveText(/^50 calls/);
  await expectNoSeriousFindingsAtBothSizes(page);
});
