import {
  allCalls,
  apiMicros,
  displayedMicros,
  expect,
  renderedRows,
  screenshot,
  test,
  type CallJson,
} from "./fixtures";

import { readState } from "./state";

// The operator's cost view (buy costs, suppliers, margins over them) is the platform's only since issue 32 (docs/
// contract.md §21): the demo's reseller key and owner ("cost"), bound to an account, read their own tier's figures.
// The tests of that view sign in as staff, on the reseller's account (MAIN), where the reseller's used to look.
const MAIN = readState().keys.cost.billingGroupId!;

const COST_WORDS = /buyCost|margin|supplierId/;
const COST_HEADERS = ["Buy cost", "Margin", "Supplier"];
const SUPPLIER_NAMES = ["Northwind Carrier Services", "Blue Ocean Voice"];

test("a calls:read session never sees or receives cost data", async ({ page, signIn, baseURL }) => {
  // Everything the server sends this page: documents, RSC payloads, /v1 answers.
  const bodies: { url: string; body: string }[] = [];
  page.on("response", async (response) => {
    const url = new URL(response.url());
    if (url.origin !== baseURL || url.pathname.startsWith("/_next/static")) return;
    const type = response.headers()["content-type"] ?? "";
    if (!/json|html|text\/x-component|csv/.test(type)) return;
    bodies.push({ url: response.url(), body: await response.text().catch(() => "") });
  });

  await signIn("read");
  await page.getByRole("link", { name: "Calls" }).click(); // client navigation: an RSC payload
  await page.waitForURL("**/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();

  const headers = await page.locator("thead th").allInnerTexts();
  expect(headers.map((h) => h.toLowerCase())).toEqual(
    ["Start time (EST)", "Direction", "From", "To", "Duration", "Billed", "Status", "Price"].map((h) =>
      h.toLowerCase(),
    ),
  );
  for (const h of COST_HEADERS) await expect(page.getByRole("columnheader", { name: h })).toHaveCount(0);
  // Nor can the column chooser offer them: the server never named them to this session.
  await page.getByRole("button", { name: "Columns" }).click();
  await expect(page.getByRole("checkbox", { name: "Hangup cause" })).toBeVisible();
  for (const h of COST_HEADERS) await expect(page.getByRole("checkbox", { name: h })).toHaveCount(0);
  await page.getByRole("button", { name: "Done" }).click();

  // The full detail of a call (GET /v1/calls/{id}) has no cost rows either.
  await page.locator("tr[data-call-id]").first().click();
  await expect(page.getByTestId("call-detail")).toContainText("Matched prefix");
  await expect(page.getByTestId("call-detail")).not.toContainText(/Buy cost|Margin|Supplier|Buy rate/);
  await screenshot(page, "call-detail-read");
  await page.keyboard.press("Escape");

  await page.reload(); // the server-rendered HTML of the call log
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await screenshot(page, "call-log-read");

  // The RSC payload as the router fetches it, and the dashboard's HTML and /v1 calls.
  const rsc = await page.request.get("/calls", { headers: { RSC: "1" } });
  bodies.push({ url: "RSC /calls", body: await rsc.text() });
  await page.goto("/");
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toBeVisible();

  const kinds = new Set(
    bodies.map((b) =>
      b.url.includes("/v1/") ? "v1" : b.url.startsWith("RSC") || b.body.startsWith("0:") ? "rsc" : "page",
    ),
  );
  expect(kinds).toEqual(new Set(["v1", "rsc", "page"]));
  expect(bodies.filter((b) => b.url.includes("/v1/calls")).length).toBeGreaterThanOrEqual(3);
  for (const { url, body } of bodies) expect(body, `cost data in ${url}`).not.toMatch(COST_WORDS);
});

test("a platform calls:read_cost session sees buy cost, exact margin and supplier", async ({ page, signIn, api }) => {
  const [expected] = await Promise.all([allCalls(api, "platform", `billingGroupId=${MAIN}`), signIn("platform")]);
  const byId = new Map<string, CallJson>(expected.map((c) => [c.id, c]));
  await page.goto(`/calls?account=${MAIN}`);
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  // Staff's default columns leave Buy cost out for the Account column: chosen here.
  await page.getByRole("button", { name: "Columns" }).click();
  await page.getByRole("checkbox", { name: "Buy cost" }).check();
  await page.getByRole("button", { name: "Done" }).click();
  for (const h of COST_HEADERS) await expect(page.getByRole("columnheader", { name: h, exact: true })).toBeVisible();

  const rows = await renderedRows(page);
  expect(rows.length).toBeGreaterThan(10);
  let negative = 0;
  for (const row of rows) {
    const call = byId.get(row.id)!;
    expect(call, `row ${row.id} is one of the key's calls`).toBeTruthy();
    if (call.rated) expect(displayedMicros(row.cells.price)).toBe(apiMicros(call.price));
    else expect(row.cells.price).toBe("Unrated");
    if (call.buyCost === null || call.buyCost === undefined) {
      expect(row.cells.buyCost).toBe("—");
      continue;
    }
    const buy = apiMicros(call.buyCost);
    expect(displayedMicros(row.cells.buyCost)).toBe(buy);
    // Margin is price - buyCost to the micro, and visibly negative when it is.
    const margin = displayedMicros(row.cells.margin);
    expect(margin).toBe(apiMicros(call.price) - buy);
    expect(margin).toBe(apiMicros(call.margin!));
    if (margin < 0n) {
      negative++;
      expect(row.cells.margin).toMatch(/▼|loss/);
    }
    // The supplier's name, not its id (the id stays in the title).
    if (call.supplierId) expect(SUPPLIER_NAMES).toContain(row.cells.supplierId);
    else expect(row.cells.supplierId).toBe("—");
  }
  // Start times follow the viewer's zone (the suite runs in America/New_York).
  const first = byId.get(rows[0].id)!;
  const local = new Intl.DateTimeFormat("en-US", {
    timeZone: "America/New_York",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).format(new Date(first.startTime));
  expect(rows[0].cells.startTime).toContain(local);
  test.info().annotations.push({ type: "negative margins on screen", description: String(negative) });

  // A loss-making call, found through the destination filter: its margin is shown negative, in red.
  const loss = expected.find((c) => c.margin !== null && c.margin !== undefined && c.margin < 0);
  expect(loss, "the demo data has loss-making calls").toBeTruthy();
  await page.getByLabel("Destination", { exact: true }).fill(loss!.to);
  const lossRow = page.locator(`tr[data-call-id="${loss!.id}"]`);
  await expect(lossRow).toBeVisible();
  const marginCell = lossRow.locator('td[data-column="margin"]');
  expect(displayedMicros(await marginCell.innerText())).toBe(apiMicros(loss!.margin!));
  await expect(marginCell).toContainText("▼");
  await expect(marginCell.locator(".text-red-700")).toBeVisible();
  await lossRow.click();
  await expect(page.getByTestId("call-detail")).toContainText("Buy rate");
  await screenshot(page, "call-detail-cost-loss");
  await page.keyboard.press("Escape");
  await page.getByLabel("Destination", { exact: true }).fill("");
  await expect(page.locator("tr[data-call-id]").nth(12)).toBeVisible();
  await screenshot(page, "call-log-cost");
});
