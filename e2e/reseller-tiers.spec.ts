import { readState, type DemoPerson } from "./state";
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

// A reseller tier (issue 32, docs/contract.md §21): the owner of the demo's "Tiered Reseller Ltd" (lib/demo/
// demo-tiers.ts), with the cost view, reads its customer's calls with its own buy cost (what it pays the operator) and
// margin, never the operator's carrier cost or supplier, in the HTML, the RSC payloads and the /v1 answers alike.

const SUPPLIER_NAMES = ["Northwind Carrier Services", "Blue Ocean Voice"];

test("a reseller's call log shows its own margin on its customer's calls, not the operator's", async ({
  page,
  signInAs,
  api,
  baseURL,
}) => {
  const bodies: { url: string; body: string }[] = [];
  page.on("response", async (response) => {
    const url = new URL(response.url());
    if (url.origin !== baseURL || url.pathname.startsWith("/_next/static")) return;
    const type = response.headers()["content-type"] ?? "";
    if (!/json|html|text\/x-component|csv/.test(type)) return;
    bodies.push({ url: response.url(), body: await response.text().catch(() => "") });
  });
  const reseller = (readState().people as unknown as Record<string, DemoPerson>).tierReseller;
  await signInAs(reseller);
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Margin", exact: true })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Account", exact: true })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Supplier", exact: true })).toHaveCount(0);

  // The reseller's own view, as its session reads /v1, and the operator's of the same calls.
  const ownAnswer = await page.request.get("/v1/calls?pageSize=100");
  bodies.push({ url: "/v1/calls (the session's)", body: await ownAnswer.text() });
  const own = (await ownAnswer.json()) as { calls: CallJson[] };
  const mine = new Map(own.calls.map((c) => [c.id, c]));
  const operator = new Map((await allCalls(api, "platform")).map((c) => [c.id, c]));
  const rows = await renderedRows(page);
  expect(rows.length).toBeGreaterThan(10);
  let differs = 0;
  for (const row of rows) {
    const call = mine.get(row.id)!;
    expect(call, `row ${row.id} is one of the reseller's calls`).toBeTruthy();
    expect("supplierId" in call).toBe(false);
    expect(row.cells.account).toBe("Reseller's Customer Co");
    // What the customer pays the reseller (the price) minus what the reseller pays the operator: its own deck's price,
    // at 60 % of the customer's rates (rated on its own, so within a rounding of 60 % of the price).
    const price = apiMicros(call.price);
    const buy = apiMicros(call.buyCost!);
    const sixtyPercent = (price * 6n) / 10n;
    expect(buy - sixtyPercent <= 10n && sixtyPercent - buy <= 10n, `${buy} is 60 % of ${price}`).toBe(true);
    expect(displayedMicros(row.cells.margin)).toBe(price - buy);
    // Buy cost is a column to choose (the Account column takes its place by default); its figure is the API's above.
    const carrier = operator.get(row.id)!;
    expect(carrier.supplierId).toBeTruthy();
    if (apiMicros(carrier.margin!) !== price - buy) differs++;
  }
  expect(differs, "the operator's margins are other numbers").toBeGreaterThan(0);

  // The call's detail: the reseller's rate, no supplier.
  await page.locator("tr[data-call-id]").first().click();
  await expect(page.getByTestId("call-detail")).toContainText("Buy rate");
  await expect(page.getByTestId("call-detail")).not.toContainText(/Supplier/);
  await page.keyboard.press("Escape");
  await page.reload();
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await screenshot(page, "call-log-reseller-tier");

  const rsc = await page.request.get("/calls", { headers: { RSC: "1" } });
  bodies.push({ url: "RSC /calls", body: await rsc.text() });
  const csv = await page.request.get("/v1/calls/export");
  bodies.push({ url: "CSV", body: await csv.text() });
  expect(bodies.filter((b) => b.url.includes("/v1/calls")).length).toBeGreaterThanOrEqual(2);
  const supplierIds = [...new Set([...operator.values()].map((c) => c.supplierId).filter(Boolean))] as string[];
  for (const { url, body } of bodies) {
    expect(body, `a supplier in ${url}`).not.toMatch(/supplierId/);
    for (const s of [...SUPPLIER_NAMES, ...supplierIds]) expect(body, `${s} in ${url}`).not.toContain(s);
  }
});

test("a reseller's Reports show its revenue, buy cost and margin by customer and destination, as /v1/usage sums them", async ({
  page,
  signInAs,
}) => {
  const reseller = (readState().people as unknown as Record<string, DemoPerson>).tierReseller;
  await signInAs(reseller);
  type Total = { currency: string; price: number; buyCost?: number; margin?: number };
  for (const groupBy of ["account", "destination"]) {
    // Every day (from=&until=): the session's own /v1/usage over the same calls.
    await page.goto(`/reports?groupBy=${groupBy}&from=&until=`);
    const totals = page.getByTestId("report-totals");
    await expect(totals).toBeVisible();
    const answer = (await (await page.request.get(`/v1/usage?groupBy=${groupBy}`)).json()) as { totals: Total[] };
    const total = answer.totals[0];
    expect(total.buyCost, "a reseller's usage has its own buy cost").toBeGreaterThan(0);
    const decimals = new Intl.NumberFormat("en", { style: "currency", currency: total.currency }).resolvedOptions()
      .maximumFractionDigits!;
    // Revenue is what its customers paid it: its buy cost plus its margin.
    const revenue = apiMicros(total.buyCost!) + apiMicros(total.margin!);
    expect(displayedMicros(await totals.getByTestId("report-total-price").innerText())).toBe(
      roundedMicros(revenue, decimals),
    );
    expect(displayedMicros(await totals.getByTestId("report-total-margin").innerText())).toBe(
      roundedMicros(apiMicros(total.margin!), decimals),
    );
    await expect(totals).toContainText("Buy cost");
    await expect(totals).toContainText("Margin %");
    await expect(page.getByRole("columnheader", { name: /^Margin %/ })).toBeVisible();
    if (groupBy === "account") await expect(page.getByTestId("report-table")).toContainText("Reseller's Customer Co");
    await screenshot(page, `reports-reseller-by-${groupBy}`);
  }
  // Suppliers are the operator's: no such grouping for a reseller.
  await expect(page.getByLabel("Group by").locator("option", { hasText: "Supplier" })).toHaveCount(0);
});
