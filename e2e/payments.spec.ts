import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { seriousFindings } from "./axe";
import { adminCli, expect, screenshot, test } from "./fixtures";
import type { E2EState } from "./state";

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
  expect(await seriousFindings(page, { include: '[data-testid="payments-card"]' })).toEqual([]);
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

// The operator's contact the suite's server runs with (global-setup.ts, OPERATOR_CONTACT).
const CONTACT = "billing@callbook.example";
const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

test("a viewer has no top-up form, and is told who pays and whom to contact", async ({ page, signInAs }) => {
  await signInAs("viewer");
  await page.goto("/");
  await expect(page.getByTestId("balance-amount")).toBeVisible();
  await expect(page.getByTestId("payments-card")).toHaveCount(0);
  const howToPay = page.getByTestId("how-to-pay");
  await expect(howToPay.getByRole("heading", { name: "How to pay" })).toBeVisible();
  await expect(howToPay).toContainText("An owner or billing member of your organization tops up by card here");
  await expect(howToPay).toContainText(`contact ${CONTACT}`);
});

/** A fresh group (nothing else touches it) with a person of each role given; their emails. */
function groupWithPeople(e2e: E2EState, roles: string[]): { group: string; emails: Record<string, string> } {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const { id } = adminCli(e2e, ["groups", "create", "--name", `Paying ${stamp}`, "--currency", "USD"]) as {
    id: string;
  };
  const emails: Record<string, string> = {};
  for (const role of roles) {
    emails[role] = `${role}-${stamp}@example.com`;
    adminCli(e2e, [
      "people",
      "add",
      "--email",
      emails[role],
      "--name",
      `${role} ${stamp}`,
      "--role",
      role,
      "--group",
      id,
      "--password",
      PASSWORD,
    ]);
  }
  return { group: id, emails };
}

const PASSWORD = "paying person 1";

test("a disabled account: its billing member gets the Top up button, its viewer the operator's contact", async ({
  page,
  signInAs,
  e2e,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server");
  const { group, emails } = groupWithPeople(e2e, ["billing", "viewer"]);
  adminCli(e2e, ["groups", "disable", "--group", group]);

  await signInAs({ email: emails.billing, password: PASSWORD });
  await page.goto("/");
  const widget = page.getByTestId("balance-widget");
  await expect(widget.getByRole("alert")).toContainText("This account is disabled");
  await expect(widget.getByRole("alert")).not.toContainText("contact support");
  const topUp = widget.getByRole("link", { name: "Top up" });
  await expect(topUp).toBeVisible();
  for (const vp of VIEWPORTS) {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    expect(await seriousFindings(page), `disabled, billing, ${vp.name}`).toEqual([]);
  }
  await screenshot(page, "payments-disabled-billing-phone");
  await topUp.click();
  await expect(page).toHaveURL(/#topup-amount$/);
  await expect(page.getByTestId("payments-card").getByLabel(/^Amount/)).toBeInViewport();

  await page.context().clearCookies();
  await signInAs({ email: emails.viewer, password: PASSWORD });
  await page.goto("/");
  await expect(widget.getByRole("alert")).toContainText(`contact ${CONTACT}`);
  await expect(widget.getByRole("link", { name: "Top up" })).toHaveCount(0);
  for (const vp of VIEWPORTS) {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    expect(await seriousFindings(page), `disabled, viewer, ${vp.name}`).toEqual([]);
  }
  await screenshot(page, "payments-disabled-viewer-phone");
});

test("a billing member has the money pages: sets low-balance alerts", async ({ page, signInAs, e2e }) => {
  test.skip(!e2e.dataDir, "needs the suite's own server");
  const { emails } = groupWithPeople(e2e, ["billing"]);
  await signInAs({ email: emails.billing, password: PASSWORD });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();
  const amounts = page.getByLabel(/Thresholds.*comma-separated/);
  await expect(amounts).toBeEnabled();
  await amounts.fill("20, 5");
  await page.getByRole("button", { name: "Save thresholds" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Thresholds saved." })).toBeVisible();
  await expect(page.getByTestId("thresholds").getByRole("listitem")).toHaveCount(2);
});

test("a billing member downloads an invoice, which says whom to contact to pay", async ({ page, signInAs, e2e }) => {
  if (e2e.dataDir) adminCli(e2e, ["invoices", "run"]);
  await signInAs("billing");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Invoices" }).click();
  // The invoices' own table, once the page has changed: the dashboard left behind has a table of calls too.
  await page.waitForURL("**/invoices");
  const first = page.getByRole("table", { name: "Invoices and notes, newest first" }).locator("tbody tr").first();
  await expect(first).toBeVisible();
  const number = (await first.locator("td").first().innerText()).trim();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    first.getByRole("link", { name: `Download ${number} as PDF` }).click(),
  ]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-invoice-")), "invoice.pdf");
  await download.saveAs(file);
  const text = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  expect(text).toContain(`No. ${number}`);
  expect(text).toContain(`Contact ${CONTACT}`);
});
