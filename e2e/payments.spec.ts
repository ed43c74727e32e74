import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";

// A billing member tops up by card: the dashboard's form opens a Checkout Session at the suite's stand-in of Stripe's
// API (global-setup.ts), the browser follows the redirect to its checkout page and pays there; the stand-in posts the
// signed checkout.session.completed event to the app's webhook, as Stripe does, and sends the browser back. The
// balance widget then shows the credited amount: only the verified event moved it.

const amountOf = (text: string) => Number(text.replace(/[^\d.-]/g, ""));

test("a billing member tops up by card and the balance shows the credited amount", async ({ page, signInAs }) => {
  await signInAs("billing");
  await page.goto("/");
  const balance = page.getByTestId("balance-amount");
  await expect(balance).toBeVisible();
  const before = amountOf(await balance.innerText());

  const card = page.getByTestId("payments-card");
  await expect(card.getByRole("heading", { name: "Top up" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/payments-dashboard.png", fullPage: true });
  const axe = await new AxeBuilder({ page })
    .include('[data-testid="payments-card"]')
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
  await card.getByLabel(/^Amount/).fill("25");
  await card.getByRole("button", { name: "Pay by card" }).click();

  // The stand-in's hosted page, for the amount in the group's currency.
  await page.waitForURL(/\/checkout\/cs_test_/);
  await expect(page.getByRole("heading", { name: /^Pay 25\.00 [A-Z]{3}$/ })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/payments-checkout.png" });
  await page.getByRole("button", { name: /^Pay / }).click();

  await page.waitForURL((url) => url.pathname === "/" && url.searchParams.get("topup") === "success");
  await expect(page.getByRole("status").filter({ hasText: "credited as soon as" })).toBeVisible();
  await expect.poll(async () => amountOf(await balance.innerText())).toBeCloseTo(before + 25, 6);
  await page.screenshot({ path: "e2e/screenshots/payments-credited.png", fullPage: true });
});

test("a viewer has no top-up form", async ({ page, signInAs }) => {
  await signInAs("viewer");
  await page.goto("/");
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  await expect(page.getByTestId("payments-card")).toHaveCount(0);
});
