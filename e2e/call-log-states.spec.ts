import { expect, test } from "./fixtures";

test.beforeEach(async ({ signIn }) => {
  await signIn("read");
});

test("empty state when nothing matches, with a way back", async ({ page }) => {
  await page.goto("/calls?destination=000000000000");
  await expect(page.getByTestId("empty-state")).toContainText("No calls match these filters");
  await expect(page.getByTestId("call-count")).toHaveText("0 calls loaded · all calls loaded");
  await page.getByTestId("empty-state").getByRole("button", { name: "Clear filters" }).click();
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  expect(new URL(page.url()).search).toBe("");
});

test("error state with retry when the API fails", async ({ page }) => {
  let failures = 0;
  // Only the call log's own pages (the dashboard's latest calls, still loading after sign-in, are not).
  const callLogPage = (url: URL) => url.pathname === "/v1/calls" && Number(url.searchParams.get("pageSize")) > 8;
  await page.route(callLogPage, async (route) => {
    if (failures < 3) {
      failures++;
      await route.fulfill({
        status: 503,
        contentType: "application/problem+json",
        body: JSON.stringify({
          code: "unavailable",
          status: 503,
          title: "Service unavailable",
          detail: "The database is unreachable. Retry shortly.",
        }),
      });
    } else {
      await route.continue();
    }
  });
  await page.goto("/calls");
  const alert = page.locator("main").getByRole("alert");
  await expect(alert).toContainText("The database is unreachable");
  await alert.getByRole("button", { name: "Retry" }).click();
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
});

test("keyboard: rows are reachable, arrow keys move, Enter opens the detail, Escape closes it", async ({ page }) => {
  await page.goto("/calls");
  const first = page.locator('tr[aria-rowindex="2"]');
  await expect(first).toBeVisible();
  await first.focus();
  for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowDown"); // beyond the first screen
  const focused = page.locator("tr:focus");
  await expect(focused).toHaveAttribute("aria-rowindex", "32");
  const id = await focused.getAttribute("data-call-id");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog")).toContainText(`Call ${id}`);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(page.locator("tr:focus")).toHaveAttribute("data-call-id", id!);
});
