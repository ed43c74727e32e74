import { allCalls, expect, openCallDetail, renderedRows, screenshot, test, type CallJson } from "./fixtures";
import type { Page } from "@playwright/test";

async function settledRows(page: Page) {
  await expect(page.locator('[data-testid="skeleton-row"]')).toHaveCount(0);
  return renderedRows(page);
}

test.describe("finding calls", () => {
  let calls: CallJson[];
  test.beforeEach(async ({ signIn, api, page }) => {
    [calls] = await Promise.all([allCalls(api, "read"), signIn("read")]);
    await page.goto("/calls");
    await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  });

  test("search by caller number (starts with), call id and uuid", async ({ page, api }) => {
    const target = calls[Math.floor(calls.length / 2)];
    const prefix = target.from.slice(0, 7);
    const expected = await allCalls(api, "read", `from=${prefix}`);
    await page.getByLabel("Search", { exact: true }).fill(prefix);
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(prefix);
    await expect
      .poll(async () => (await settledRows(page)).map((r) => r.id).slice(0, 5))
      .toEqual(expected.slice(0, 5).map((c) => c.id));
    // Shown in E.164 ("+" and the stored digits).
    for (const r of await settledRows(page)) expect(r.cells.from.startsWith(`+${prefix}`)).toBe(true);
    await screenshot(page, "call-log-search-caller");
    // A number as people paste it searches by its digits.
    await page.getByLabel("Search", { exact: true }).fill("");
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBeNull();
    await page
      .getByLabel("Search", { exact: true })
      .fill(`${prefix.slice(0, 2)} (${prefix.slice(2, 4)}) ${prefix.slice(4)}`);
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(prefix);

    await page.getByLabel("Search by").selectOption("id");
    await page.getByLabel("Search", { exact: true }).fill(target.id);
    await expect.poll(async () => (await settledRows(page)).map((r) => r.id)).toEqual([target.id]);
    // The URL follows the search after its debounce, not with the rows: wait for it rather than read it once.
    await expect.poll(() => new URL(page.url()).searchParams.get("by")).toBe("id");
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(target.id);
    await page.reload();
    await expect.poll(async () => (await settledRows(page)).map((r) => r.id)).toEqual([target.id]);
    await expect(page.getByLabel("Search by")).toHaveValue("id");

    await page.getByLabel("Search by").selectOption("uuid");
    await page.getByLabel("Search", { exact: true }).fill(target.uuid);
    await expect.poll(async () => (await settledRows(page)).map((r) => r.id)).toEqual([target.id]);

    // Letters are no call id: the field says so and the list is not narrowed to nothing.
    await page.getByLabel("Search by").selectOption("id");
    await page.getByLabel("Search", { exact: true }).fill("abc");
    await expect(page.getByText("A call ID is digits only.")).toBeVisible();
  });

  test("destination: starts with, as well as contains", async ({ page, api }) => {
    const prefix = calls[0].to.slice(0, 3);
    const expected = await allCalls(api, "read", `toPrefix=${prefix}`);
    const containing = await allCalls(api, "read", `to=${prefix}`);
    expect(containing.length).toBeGreaterThan(expected.length); // the option matters
    await page.getByLabel("Destination match").selectOption("prefix");
    await page.getByLabel("Destination", { exact: true }).fill(prefix);
    await expect.poll(() => new URL(page.url()).searchParams.get("match")).toBe("prefix");
    await expect.poll(() => new URL(page.url()).searchParams.get("destination")).toBe(prefix);
    const rows = await settledRows(page);
    expect(rows.map((r) => r.id)).toEqual(expected.slice(0, rows.length).map((c) => c.id));
    for (const r of rows) expect(r.cells.to.startsWith(`+${prefix}`)).toBe(true);
    await expect(page.getByTestId("call-count")).toContainText(
      expected.length < 500 ? `${expected.length}` : "more available",
    );
  });

  test("every call has a linkable page; another group's call is not found", async ({ page, api }) => {
    const target = calls[3];
    await openCallDetail(page, page.locator(`tr[data-call-id="${target.id}"]`));
    await page.getByTestId("call-permalink").click();
    await page.waitForURL(`**/calls/${target.id}`);
    await expect(page.getByRole("heading", { name: `Call ${target.id}` })).toBeVisible();
    await expect(page.getByTestId("call-detail")).toContainText(target.uuid);
    await screenshot(page, "call-page");
    // Directly, in a fresh load.
    await page.goto(`/calls/${target.id}`);
    await expect(page.getByTestId("call-detail")).toContainText(target.to);

    const others = await allCalls(api, "platform");
    const foreign = others.find((c) => c.billingGroupId !== target.billingGroupId)!;
    const response = await page.goto(`/calls/${foreign.id}`);
    expect(response?.status()).toBe(404);
  });

  test("phone width: a card per call, keyboard and detail still work", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const card = page.getByTestId("call-card").first();
    await expect(card).toBeVisible();
    await expect(card).toContainText(calls[0].to);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, "call-log-cards-phone");
    await card.focus();
    await page.keyboard.press("ArrowDown");
    await expect(page.locator('[data-testid="call-card"]:focus')).toHaveAttribute("data-call-id", calls[1].id);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("call-detail")).toContainText(calls[1].uuid);
    await screenshot(page, "call-detail-phone");
  });
});
