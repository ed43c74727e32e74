import type { Locator, Page } from "@playwright/test";
import { expect, screenshot, test } from "./fixtures";

// Phone width (390x844, as accessibility.spec.ts's phone): the header keeps to one row with a Menu button, and the
// invoices and the console's accounts are cards whose amounts and status are on screen, not past a table's edge.

const PHONE = { width: 390, height: 844 };

async function expectOnScreen(page: Page, element: Locator): Promise<void> {
  await expect(element).toBeVisible();
  const box = (await element.boundingBox())!;
  expect(box.x, "left edge").toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, "right edge").toBeLessThanOrEqual(PHONE.width);
}

async function noSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

test.beforeEach(async ({ page }) => {
  await page.setViewportSize(PHONE);
});

test("the navigation is one row with a Menu button that opens the links, and closes on Escape and on navigation", async ({
  page,
  useSessionOf,
}) => {
  // The platform's admin has the longest navigation.
  await useSessionOf("platform");
  await page.goto("/");
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  const header = page.locator("header");
  const nav = page.getByRole("navigation", { name: "Main" });
  const menu = nav.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  // One row: the logo's height plus padding, not the 270-340 px of two to four rows of links.
  expect((await header.boundingBox())!.height).toBeLessThanOrEqual(64);
  await expect(nav.getByRole("link", { name: "Invoices" })).toBeHidden();
  await screenshot(page, "phone-dashboard");

  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  const panel = page.locator(`#${await menu.getAttribute("aria-controls")}`);
  await expect(panel.getByRole("link", { name: "Accounts" })).toBeVisible();
  await expectOnScreen(page, panel.getByRole("link", { name: "Security" }));
  await screenshot(page, "phone-dashboard-menu");

  await page.keyboard.press("Escape");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeFocused();
  await expect(panel).toBeHidden();

  await menu.click();
  await panel.getByRole("link", { name: "Invoices" }).click();
  await page.waitForURL((url) => url.pathname === "/invoices");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(panel).toBeHidden();
  await noSidewaysScroll(page);
});

test("the invoices are cards with their total and currency on screen", async ({ page, useSessionOf }) => {
  await useSessionOf("viewer");
  await page.goto("/invoices");
  const card = page.getByTestId("invoice-card").first();
  await expect(card).toBeVisible();
  await expect(card).toContainText(/INV-\d{6}/);
  await expectOnScreen(page, card.locator('[data-field="total"]'));
  await expect(card.locator('[data-field="total"]')).toContainText(/\d/);
  await expectOnScreen(page, card.locator('[data-field="currency"]'));
  await expect(card.locator('[data-field="currency"]')).toHaveText(/^[A-Z]{3}$/);
  await expect(card.getByRole("link", { name: /as PDF$/ })).toBeVisible();
  await expect(page.getByRole("table")).toBeHidden();
  await noSidewaysScroll(page);
  await screenshot(page, "phone-invoices");
});

test("the console's accounts are cards with their balance, currency and status on screen", async ({
  page,
  useSessionOf,
}) => {
  await useSessionOf("platform");
  await page.goto("/console/accounts");
  const card = page.getByTestId("account-card").first();
  await expect(card).toBeVisible();
  for (const field of ["balance", "currency", "status"])
    await expectOnScreen(page, card.locator(`[data-column="${field}"]`));
  await expect(card.locator('[data-column="status"]')).toHaveText(/^(Enabled|Disabled)$/);
  await expect(page.getByTestId("accounts-table")).toHaveCount(0);
  // Sorting without the table's headers: by balance, highest first.
  await page.getByLabel("Sort by").selectOption("balance:desc");
  await expect(page.getByTestId("account-card").first()).toBeVisible();
  await noSidewaysScroll(page);
  await screenshot(page, "phone-console-accounts");
});
