import type { Page } from "@playwright/test";
import { seriousFindings } from "./axe";
import { expect, screenshot, test } from "./fixtures";
import { readState, type DemoPerson } from "./state";

// A reseller's owner follows every link the portal shows it (issue 32 item 5, docs/contract.md "Reseller tiers"):
// each page answers, none carries the operator's suppliers; from a customer's console page it sets that customer's
// limits and alerts and imports its sell deck with the dry run and the margin guard against its own buy deck.

function reseller(): DemoPerson {
  return (readState().people as unknown as Record<"tierReseller", DemoPerson>).tierReseller;
}

// The operator's suppliers (lib/demo/generate-calls.ts DEMO_SUPPLIERS): never on a reseller's page, nor their ids.
const OPERATOR_ONLY =
  /supplierId|Northwind Carrier Services|Blue Ocean Voice|carrier_a|carrier_b|\/rate-decks\/suppliers/;

/** Opens a path and checks it answers 200 without an error, and that neither its HTML nor its RSC payload names a supplier. */
async function visit(page: Page, path: string): Promise<void> {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  await expect(page.getByRole("heading", { level: 1 }).first(), path).toBeVisible();
  await expect(page.getByText(/Something went wrong|Application error|could not be found/i), path).toHaveCount(0);
  expect(await page.content(), `${path} HTML`).not.toMatch(OPERATOR_ONLY);
  const rsc = await page.request.get(path, { headers: { RSC: "1" } });
  expect(await rsc.text(), `${path} RSC`).not.toMatch(OPERATOR_ONLY);
}

test("a reseller's owner: every link answers, no supplier on any page; a customer's limits, alerts and deck", async ({
  page,
  signInAs,
}) => {
  // About 25 pages, each as HTML and as RSC, on a shared loaded machine.
  test.setTimeout(480_000);
  await signInAs(reseller());
  const own = ((await (await page.request.get("/v1/balances")).json()) as { billingGroupId: string }).billingGroupId;

  // The badge says what the session is: a reseller's, whose cost view is its own margins.
  await expect(page.getByText("Reseller owner · your margins")).toBeVisible();

  // Every link of the main navigation.
  const nav = page.getByRole("navigation", { name: "Main" });
  const links = await nav
    .getByRole("link")
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  expect(links).toEqual(expect.arrayContaining(["/console/accounts", "/rate-decks", "/limits", "/alerts"]));
  for (const path of new Set(links)) await visit(page, path);
  // The suppliers' decks stay the operator's.
  expect((await page.goto("/rate-decks/suppliers"))?.status()).toBe(404);
  expect((await page.goto("/rate-decks/suppliers/upload"))?.status()).toBe(404);

  // Its billing details, on its own account's page: what its customers' invoices say of it.
  await visit(page, `/console/accounts/${own}`);
  const details = page.getByTestId("billing-details-form");
  await details.getByLabel(/^Name on invoices/).fill("Tiered Reseller Trading Ltd");
  await details.getByLabel(/^Address/).fill("1 Resale Row\nSpringfield");
  await details.getByLabel(/^Tax ID/).fill("US-12-3456789");
  await details.getByRole("button", { name: "Save billing details" }).click();
  await expect(details.getByTestId("billing-details-status")).toHaveText(/^Saved/);
  await page.reload();
  await expect(page.getByTestId("billing-details-form").getByLabel(/^Address/)).toHaveValue(
    "1 Resale Row\nSpringfield",
  );
  await screenshot(page, "reseller-billing-details");
  expect(await seriousFindings(page), "own account page").toEqual([]);

  // A new customer (its own, so the other specs' demo customer keeps its deck), then every link of its console page.
  const name = `Portal Links Customer ${Date.now()}`;
  const created = await page.request.post("/v1/accounts", {
    data: { name },
    // A change with the session cookie needs this site's Origin (docs/contract.md §2), as the console's forms send.
    headers: { "idempotency-key": crypto.randomUUID(), origin: new URL(page.url()).origin },
  });
  expect(created.status()).toBe(201);
  const customer = ((await created.json()) as { id: string }).id;
  await visit(page, `/console/accounts/${customer}`);
  const elsewhere = await page
    .getByRole("navigation", { name: "This account elsewhere" })
    .getByRole("link")
    .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute("href")!));
  expect(elsewhere).toEqual(
    expect.arrayContaining([
      `/rate-decks?account=${customer}`,
      `/limits?account=${customer}`,
      `/alerts?account=${customer}`,
    ]),
  );
  for (const href of elsewhere) await visit(page, href);

  // Its limits: the layer the reseller writes as its provider (its own layer, beside the operator's, which it cannot
  // change), of this customer, not its own.
  await page.goto(`/limits?account=${customer}`);
  await expect(page.getByText("Your limits on this customer")).toBeVisible();
  const operatorBefore = (
    (await (await page.request.get(`/v1/limits?account=${customer}`)).json()) as {
      operator: { maxConcurrentCalls: number | null };
    }
  ).operator.maxConcurrentCalls;
  await page.getByLabel("Calls in progress").fill("7");
  await page.getByRole("button", { name: "Save limits" }).click();
  await expect
    .poll(async () => {
      const limits = (await (await page.request.get(`/v1/limits?account=${customer}`)).json()) as {
        operator: { maxConcurrentCalls: number | null };
        provider: { maxConcurrentCalls: number | null } | null;
      };
      return [limits.provider?.maxConcurrentCalls, limits.operator.maxConcurrentCalls];
    })
    .toEqual([7, operatorBefore]);
  const ownLimits = (await (await page.request.get("/v1/limits")).json()) as {
    billingGroupId: string;
    operator: { maxConcurrentCalls: number | null };
  };
  expect(ownLimits.billingGroupId).toBe(own);
  expect(ownLimits.operator.maxConcurrentCalls).not.toBe(7);

  // Its alerts: the customer's thresholds, named.
  await page.goto(`/alerts?account=${customer}`);
  await expect(page.getByText(`For ${name}`, { exact: true })).toBeVisible();

  // Its sell deck: the dry run compares each rate with the reseller's own buy deck; below cost needs a tick.
  const ownDeck = await page.request.get(`/v1/accounts/${own}/rate-decks/current`);
  expect(ownDeck.status()).toBe(200);
  const buy = (await ownDeck.text())
    .split(/\r?\n/)
    .map((line) => line.split(","))
    .filter((cells) => /^\d+$/.test(cells[0]) && Number(cells[1]) > 0)
    .slice(0, 2);
  expect(buy).toHaveLength(2);
  const [ok, cheap] = buy;
  const csv = `prefix,rate,increment,description\r\n${ok[0]},${(Number(ok[1]) * 2).toFixed(6)},60/60,Above cost\r\n${cheap[0]},0.000001,60/60,Below cost\r\n`;
  await page.goto("/rate-decks");
  await page.getByLabel("Account").selectOption(customer);
  await page.getByRole("link", { name: "Upload deck" }).click();
  await page.waitForURL(/\/rate-decks\/upload\?account=/);
  await expect(page.getByLabel("Account")).toHaveValue(customer);
  // Its own account is not offered: its provider prices it.
  await expect(page.getByLabel("Account").locator(`option[value="${own}"]`)).toHaveCount(0);
  await page.getByLabel(/CSV file/).setInputFiles({ name: "deck.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Preview changes" }).click();
  const guard = page.getByTestId("parent-costs");
  await expect(guard.getByTestId("parent-costs-counts")).toContainText("1 below cost");
  await expect(guard.locator(`tr[data-status="below_cost"]`)).toContainText(cheap[0]);
  await expect(guard.locator(`tr[data-status="ok"]`)).toContainText(ok[0]);
  for (const [width, height, suffix] of [
    [1440, 900, ""],
    [390, 844, "-phone"],
  ] as const) {
    await page.setViewportSize({ width, height });
    await guard.scrollIntoViewIfNeeded();
    await screenshot(page, `reseller-deck-guard${suffix}`);
    expect(await seriousFindings(page), `deck upload at ${width}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  expect(await page.content()).not.toMatch(OPERATOR_ONLY);

  // Without the tick the import is refused, naming the prefix; nothing imported.
  const preview = page.getByTestId("deck-preview");
  await preview.getByRole("button", { name: "Confirm import" }).click();
  await expect(preview.getByRole("alert")).toContainText(`prefix ${cheap[0]}`);
  expect((await page.request.get(`/v1/accounts/${customer}/rate-decks/current`)).status()).toBe(404);
  await preview.getByLabel(/below-cost rate anyway/).check();
  await preview.getByRole("button", { name: "Confirm import" }).click();
  await expect(page.getByTestId("deck-imported")).toContainText("Imported 2 rates");
  const imported = await page.request.get(`/v1/accounts/${customer}/rate-decks/current`);
  expect(imported.status()).toBe(200);
  expect(await imported.text()).toContain(`${cheap[0]},0.000001`);
});

test("a reseller's owner limits a customer of its customer: its own layer beside its customer's, both shown", async ({
  page,
  signInAs,
}) => {
  await signInAs(reseller());
  // A customer (A), made as Rita makes it: Accounts, New customer. A's own customer (B) over the API with her session:
  // the form offers as parents only her account and those that already have customers, so the portal cannot make
  // A's first one (left as found; docs/contract.md "Reseller tiers").
  await page.goto("/console/accounts");
  await page.getByRole("link", { name: "New customer" }).click();
  await page.getByLabel("Name").fill(`Sub-reseller ${Date.now()}`);
  await page.getByRole("button", { name: "Create customer" }).click();
  await page.waitForURL(/\/console\/accounts\/bg_/);
  const a = new URL(page.url()).pathname.split("/").pop()!;
  const created = await page.request.post("/v1/accounts", {
    data: { name: `Sub-reseller's Customer ${Date.now()}`, parentId: a },
    headers: { "idempotency-key": crypto.randomUUID(), origin: new URL(page.url()).origin },
  });
  expect(created.status()).toBe(201);
  const b = ((await created.json()) as { id: string }).id;
  await page.goto(`/console/accounts/${b}`);

  // B's Limits, from its console page: Rita's layer on B is hers, A's stays A's (migration 0041).
  await page
    .getByRole("navigation", { name: "This account elsewhere" })
    .getByRole("link", { name: "Limits", exact: true })
    .click();
  await page.waitForURL((url) => url.pathname === "/limits" && url.searchParams.get("account") === b);
  await expect(page.getByText("Your limits on this customer")).toBeVisible();
  const rules = page.getByTestId("limits-rules");
  // From the top: the operator's, Rita's (two up from B), A's (B's parent), B's own.
  await expect(rules.getByRole("columnheader")).toHaveText([
    "Rule",
    "Operator's",
    "Reseller's, 2 up",
    "Reseller's",
    "Customer's",
    "Now",
  ]);
  await page.getByLabel("Calls in progress").fill("5");
  await page.getByRole("button", { name: "Save limits" }).click();
  await expect(page.getByRole("status")).toHaveText("Limits saved.");
  const cells = rules.getByRole("row", { name: /^Calls in progress/ }).getByRole("cell");
  await expect(cells.nth(1)).toHaveText("5");
  await expect(cells.nth(2)).toHaveText("No limit");
  const limits = (await (await page.request.get(`/v1/limits?account=${b}`)).json()) as {
    provider: { maxConcurrentCalls: number | null };
    providers: { depth: number; maxConcurrentCalls: number | null }[];
  };
  expect(limits.provider.maxConcurrentCalls).toBe(5);
  expect(limits.providers.map((p) => [p.depth, p.maxConcurrentCalls])).toEqual([
    [1, null],
    [2, 5],
  ]);
  await screenshot(page, "reseller-limits-two-up");
  expect(await seriousFindings(page), "limits of a customer two tiers down").toEqual([]);
});
