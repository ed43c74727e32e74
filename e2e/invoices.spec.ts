import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { adminCli, expect, screenshot, test } from "./fixtures";

test("a customer sees the invoices of their closed months and downloads one as PDF", async ({ page, signIn, e2e }) => {
  // The demo's customers date from their first call (90 days back): the server's invoice run issues their closed
  // months at start; running it again here waits for nothing and issues nothing twice.
  if (e2e.dataDir) adminCli(e2e, ["invoices", "run"]);
  await signIn("read");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Invoices" }).click();
  await expect(page).toHaveURL(/\/invoices/);
  await expect(page.getByRole("heading", { name: "Invoices", level: 1 })).toBeVisible();
  const rows = page.locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThanOrEqual(2);
  const first = rows.first();
  const number = (await first.locator("td").first().innerText()).trim();
  expect(number).toMatch(/^INV-\d{6}$/);
  await expect(first).toContainText("Invoice");
  await screenshot(page, "invoices");

  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    first.getByRole("link", { name: `Download ${number} as PDF` }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${number}.pdf`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-invoice-")), "invoice.pdf");
  await download.saveAs(file);
  expect(fs.readFileSync(file).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  const text = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" });
  expect(text).toContain(`No. ${number}`);
  expect(text).toContain("INVOICE");
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});
