import { allCalls, expect, renderedRows, test, type CallJson } from "./fixtures";
import type { Page } from "@playwright/test";

async function firstRows(page: Page) {
  await expect(page.locator('[data-testid="skeleton-row"]')).toHaveCount(0);
  return renderedRows(page);
}

/** Rows after a filter change: different from before, and the URL carries the filter. */
async function expectFiltered(
  page: Page,
  before: string[],
  param: string,
  value: string,
  check: (cells: Record<string, string>) => boolean,
) {
  await expect.poll(() => new URL(page.url()).searchParams.get(param)).toBe(value);
  // The URL changes before the filtered page arrives, and a two-field filter (From, then Until) passes through
  // an intermediate view, so wait until the rows shown are the final filter's, not merely different ones.
  await expect(async () => {
    const rows = await firstRows(page);
    expect(rows.map((r) => r.id).join()).not.toBe(before.join());
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(check(r.cells), JSON.stringify(r.cells)).toBe(true);
  }).toPass();
  // A reload (or a shared link) restores the same view.
  await page.reload();
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  const rows = await firstRows(page);
  for (const r of rows) expect(check(r.cells), JSON.stringify(r.cells)).toBe(true);
  expect(new URL(page.url()).searchParams.get(param)).toBe(value);
}

test.describe("call log filters", () => {
  let calls: CallJson[];
  test.beforeEach(async ({ signIn, api, page }) => {
    [calls] = await Promise.all([allCalls(api, "read"), signIn("read")]);
    await page.goto("/calls");
    await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  });

  test("direction", async ({ page }) => {
    const before = (await firstRows(page)).map((r) => r.id);
    const wanted = calls[0].direction === "outbound" ? "inbound" : "outbound";
    await page.getByLabel("Direction").selectOption(wanted);
    await expectFiltered(page, before, "direction", wanted, (c) => c.direction.toLowerCase().includes(wanted));
    await expect(page.getByLabel("Direction")).toHaveValue(wanted);
  });

  test("destination (partial)", async ({ page }) => {
    const before = (await firstRows(page)).map((r) => r.id);
    // A fragment from the middle of an older call's number: a partial match, not a prefix.
    const fragment = calls[Math.floor(calls.length / 2)].to.slice(2, 7);
    await page.getByLabel("Destination", { exact: true }).fill(fragment);
    await expectFiltered(page, before, "destination", fragment, (c) => c.to.includes(fragment));
    await expect(page.getByLabel("Destination", { exact: true })).toHaveValue(fragment);
  });

  test("hangup cause", async ({ page }) => {
    // The raw cause is a column people choose to show (the status column is the default).
    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("checkbox", { name: "Hangup cause" }).check();
    await page.getByRole("button", { name: "Done" }).click();
    const before = (await firstRows(page)).map((r) => r.id);
    const cause = calls.find((c) => c.hangupCause && c.hangupCause !== calls[0].hangupCause)!.hangupCause!;
    await page.getByRole("combobox", { name: "Hangup cause" }).fill(cause);
    await page.getByRole("combobox", { name: "Hangup cause" }).press("Enter");
    await expectFiltered(page, before, "cause", cause, (c) => c.hangupCause === cause);
    await expect(page.getByRole("combobox", { name: "Hangup cause" })).toHaveValue(cause);
  });

  test("date range, typed and quick", async ({ page }) => {
    const before = (await firstRows(page)).map((r) => r.id);
    // A day well inside the data, in the viewer's zone (America/New_York).
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(
      new Date(calls[Math.floor(calls.length / 3)].startTime),
    );
    await page.getByLabel("From", { exact: true }).fill(day);
    await page.getByLabel("Until").fill(day);
    await expectFiltered(page, before, "until", day, (c) => c.startTime.startsWith(day));
    expect(new URL(page.url()).searchParams.get("from")).toBe(day);

    await page.getByRole("button", { name: "7 days" }).click();
    await expect(page.getByRole("button", { name: "7 days" })).toHaveAttribute("aria-pressed", "true");
    const from = new URL(page.url()).searchParams.get("from")!;
    expect(from).not.toBe(day);
    await expect(async () => {
      for (const r of await firstRows(page)) expect(r.cells.startTime.slice(0, 10) >= from).toBe(true);
    }).toPass();
    await page.reload();
    await expect(page.getByRole("button", { name: "7 days" })).toHaveAttribute("aria-pressed", "true");
  });
});
