import fs from "node:fs";
import { allCalls, expect, test } from "./fixtures";

test("Export in background: progress, then a download link to the same CSV as the direct export", async ({
  page,
  signIn,
  api,
}) => {
  const [expected] = await Promise.all([allCalls(api, "cost", "direction=outbound"), signIn("cost")]);
  await page.goto("/calls?direction=outbound");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await page.getByRole("button", { name: "Export in background" }).click();
  const link = page.getByRole("link", { name: /^Download CSV/ });
  await expect(link).toBeVisible({ timeout: 30_000 });
  await expect(link).toContainText(`${expected.length.toLocaleString("en-US")} calls`);
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^calls-.*\.csv$/);
  const csv = fs.readFileSync(await download.path(), "utf8");
  const lines = csv.trimEnd().split("\r\n");
  // A bound cost session reads its own tier's buy cost and margin, never the supplier (issue 32, contract §21).
  expect(lines[0].split(",").slice(-3)).toEqual(["rated", "buyCost", "margin"]);
  expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(expected.map((c) => c.id));
});
