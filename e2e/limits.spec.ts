import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import { expect, screenshot, test } from "./fixtures";

// The Limits page (issue 31 item 4) as the customer's people see it: the owner tightens the account's limits through
// the page's form and sees them in the rules, with the API's refusal of a malformed number shown in place, and the
// dashboard's card of calls now and today's spend against the new caps; a viewer sees the same rules and no form.

test.describe.configure({ mode: "serial" });

test("the customer's owner sets a tighter limit through the page and sees it, here and on the dashboard", async ({
  page,
  signInAs,
}) => {
  await signInAs("reseller");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Limits" }).click();
  await expect(page.getByRole("heading", { name: "Limits", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "Your limits" });
  const calls = form.getByLabel("Calls in progress");
  const daily = form.getByLabel("Spend per day");

  // A number the API cannot take: its 400 is said next to the form, nothing is saved.
  await calls.fill("seven");
  await form.getByRole("button", { name: "Save limits" }).click();
  await expect(form.getByRole("alert")).toContainText("maxConcurrentCalls");

  await calls.fill("7");
  await daily.fill("40");
  await form.getByRole("button", { name: "Save limits" }).click();
  await expect(form.getByRole("status")).toHaveText("Limits saved.");
  const rules = page.getByTestId("limits-rules");
  const callsRow = rules.getByRole("row", { name: /^Calls in progress/ });
  await expect(callsRow.getByRole("cell").nth(1)).toHaveText("7");
  await expect(
    rules
      .getByRole("row", { name: /^Spend per day/ })
      .getByRole("cell")
      .nth(1),
  ).toHaveText(/40\.00/);
  await expect(page.getByRole("heading", { name: "Recent refusals" })).toBeVisible();
  await screenshot(page, "limits-owner");
  await expectNoSeriousFindingsAtBothSizes(page);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
  await expect(page.getByTestId("limits-card-calls")).toHaveText(/^\d+ of 7$/);
  await expect(page.getByTestId("limits-card-today")).toHaveText(/ of \D*40\.00/);
  await screenshot(page, "limits-dashboard-card");

  // Back to no limits of the customer's, so the other specs' account authorizes as before; the card goes with them.
  await page.getByTestId("limits-card").getByRole("link", { name: "All limits" }).click();
  await calls.fill("");
  await daily.fill("");
  await form.getByRole("button", { name: "Save limits" }).click();
  await expect(form.getByRole("status")).toHaveText("Limits saved.");
  await expect(callsRow.getByRole("cell").nth(1)).toHaveText("No limit");
});

test("a viewer sees the account's limits and refusals but no form to change them", async ({ page, signInAs }) => {
  await signInAs("viewer");
  await page.goto("/limits");
  await expect(page.getByRole("heading", { name: "Limits", level: 1 })).toBeVisible();
  await expect(page.getByTestId("limits-rules").getByRole("row", { name: /^Calls in progress/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Recent refusals" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Save limits" })).toHaveCount(0);
  await expect(page.locator("main").getByRole("textbox")).toHaveCount(0);
  await screenshot(page, "limits-viewer");
  await expectNoSeriousFindingsAtBothSizes(page);
});
