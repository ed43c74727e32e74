import fs from "node:fs";
import { allCalls, expect, test, type ReaderKind } from "./fixtures";

for (const kind of ["read", "cost"] as ReaderKind[]) {
  test(`CSV export of the current filter, ${kind} session`, async ({ page, signIn, api }) => {
    const [expected] = await Promise.all([allCalls(api, kind, "direction=inbound"), signIn(kind)]);
    await page.goto("/calls?direction=inbound");
    await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^calls-.*\.csv$/);
    const csv = fs.readFileSync(await download.path(), "utf8");
    const lines = csv.trimEnd().split("\r\n");
    const header = lines[0].split(",");
    expect(header.slice(0, 5)).toEqual(["id", "uuid", "direction", "from", "to"]);
    // A bound cost session: its own tier's figures, never the supplier (issue 32, docs/contract.md §21).
    if (kind === "cost") expect(header.slice(-3)).toEqual(["rated", "buyCost", "margin"]);
    else expect(csv).not.toMatch(/buyCost|margin|supplierId|sup_/);
    // Every matching call, in the API's order: the stream follows all pages.
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(expected.map((c) => c.id));
  });
}
