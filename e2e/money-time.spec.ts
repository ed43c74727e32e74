import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import { allCalls, apiMicros, displayedMicros, expect, renderedRows, screenshot, test } from "./fixtures";

test("prices: the currency's decimals, exact, and Unrated rather than 0.00 for unrated calls", async ({
  page,
  signIn,
  api,
}) => {
  const [calls] = await Promise.all([allCalls(api, "read"), signIn("read")]);
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  const rows = await renderedRows(page);
  const byId = new Map(calls.map((c) => [c.id, c]));
  const decimals = new Set<number>();
  for (const r of rows) {
    const call = byId.get(r.id)!;
    if (call.rated) {
      // At least the currency's 2 decimals ("$0.00" for a free call), more only where an amount has them.
      expect(r.cells.price, r.id).toMatch(/^-?[$€]\d[\d,]*\.\d{2,6}$/);
      expect(displayedMicros(r.cells.price)).toBe(apiMicros(call.price));
      decimals.add(r.cells.price.split(".")[1]!.length);
    } else expect(r.cells.price).toBe("Unrated");
  }
  // One precision down the column ("$0.00145", "$0.01990", "$0.00000"), not "$0.00145" over "$0.0199" over "$0.00".
  expect([...decimals]).toHaveLength(1);

  const unrated = calls.find((c) => !c.rated);
  expect(unrated, "the demo data has unrated calls").toBeTruthy();
  await page.goto(`/calls?q=${unrated!.id}&by=id`);
  const row = page.locator(`tr[data-call-id="${unrated!.id}"]`);
  await expect(row.locator('td[data-column="price"]')).toHaveText("Unrated");
  await expect(row.locator('td[data-column="price"]')).not.toContainText("0.00");
  await screenshot(page, "call-log-unrated");
  await row.click();
  await expect(page.getByTestId("call-detail")).toContainText("Unrated");
});

test("staff's call log over every account: the currency's code beside each amount, one precision per column, Billed explained", async ({
  page,
  signIn,
  api,
}) => {
  const [calls] = await Promise.all([allCalls(api, "platform"), signIn("platform")]);
  const byId = new Map(calls.map((c) => [c.id, c]));
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  const rows = await renderedRows(page);
  const currencies = new Set(rows.map((r) => byId.get(r.id)!.currency));
  expect(currencies.size, "the newest calls of every account span currencies").toBeGreaterThan(1);
  const checked: Record<string, number> = {};
  for (const column of ["price", "buyCost", "margin"] as const) {
    const decimals = new Set<number>();
    for (const r of rows) {
      const call = byId.get(r.id)!;
      const text = r.cells[column];
      const value = call[column];
      if (text === undefined || value === null || value === undefined || (column === "price" && !call.rated)) continue;
      // "USD 0.01990" beside "EUR 0.01230": never a "$" over a "€" with nothing saying which is which.
      expect(text, `${column} of ${r.id}`).toContain(`${call.currency}\u00a0`);
      expect(text).not.toMatch(/[$€£¥]/);
      expect(displayedMicros(text)).toBe(apiMicros(value));
      decimals.add(/\.(\d+)/.exec(text)?.[1]!.length ?? 0);
      checked[column] = (checked[column] ?? 0) + 1;
    }
    expect(decimals.size, `one precision in the ${column} column`).toBeLessThanOrEqual(1);
  }
  expect(checked.price).toBeGreaterThan(5);
  expect(checked.margin).toBeGreaterThan(5);
  // Duration beside a shorter Billed is not a discount: the legend says what each counts.
  await expect(page.getByTestId("duration-legend")).toContainText("ringing included");
  await expect(page.getByTestId("duration-legend")).toContainText("rounded up to the rate's increment");
  await screenshot(page, "call-log-staff-currencies");
  await expectNoSeriousFindingsAtBothSizes(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("call-card").first()).toBeVisible();
  await expect(page.getByTestId("call-card").first()).toContainText(/(USD|EUR|GBP)\u00a0\d/);
  await screenshot(page, "call-log-staff-currencies-phone");
});

test("balances in the currency's own decimals", async ({ page, signIn }) => {
  await signIn("read");
  await expect(page.getByTestId("balance-amount")).toHaveText(/^-?[$€]\d[\d,]*\.\d{2}$/);
});

test("one date format, the zone named, and a switch between the viewer's zone and UTC that persists", async ({
  page,
  signIn,
  api,
}) => {
  const [calls] = await Promise.all([allCalls(api, "read"), signIn("read")]);
  await page.goto("/calls");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  const header = page.locator('th[data-column="startTime"]');
  await expect(header).toHaveText(/\(EST\)/i);
  const first = calls[0];
  const inZone = (tz: string) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
      })
        .formatToParts(new Date(first.startTime))
        .map((x) => [x.type, x.value]),
    );
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
  const cell = page.locator(`tr[data-call-id="${first.id}"] td[data-column="startTime"]`);
  await expect(cell).toHaveText(inZone("America/New_York"));

  await page.getByTestId("tz-switch").getByRole("button", { name: "UTC" }).click();
  await expect(header).toHaveText(/\(UTC\)/i);
  await expect(cell).toHaveText(inZone("UTC"));
  await screenshot(page, "call-log-utc");

  // The dashboard has one zone, its account's (the demo's is UTC), whatever the switch: its days and its latest calls'
  // times are both in it, and it says so (docs/contract.md "Periods on screens").
  await page.goto("/");
  // The choice persists (the switch still says UTC after the page load).
  await expect(page.getByTestId("tz-switch").getByRole("button", { name: "UTC" })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await expect(page.getByTestId("screen-zone")).toContainText("UTC (the account's time zone)");
  await expect(page.getByTestId("latest-calls").locator("th").first()).toHaveText(/\(UTC\)/i);
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toContainText(inZone("UTC"));
  await page.getByTestId("tz-switch").getByRole("button", { name: "Local" }).click();
  await expect(page.getByTestId("tz-switch").getByRole("button", { name: "Local" })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await expect(page.getByTestId("latest-calls").locator("th").first()).toHaveText(/\(UTC\)/i);
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toContainText(inZone("UTC"));

  // The detail names the zone for each time.
  await page.goto(`/calls/${first.id}`);
  await expect(page.getByTestId("call-detail")).toContainText("Started (America/New_York)");
  await expect(page.getByTestId("call-detail")).toContainText(inZone("America/New_York"));
});

test("the rate calculator clears an old result when the input changes or is invalid", async ({ page, signIn, api }) => {
  await signIn("read");
  const { calls } = await api<{ calls: { to: string; rated: boolean }[] }>(
    "read",
    "/v1/calls?pageSize=50&direction=outbound",
  );
  const destination = calls.find((c) => c.rated)!.to;
  await page.goto("/rates");
  await page.getByLabel("Destination number").fill(destination);
  await page.getByRole("button", { name: "Look up rate" }).click();
  await expect(page.getByTestId("rate-prefix")).toBeVisible();

  // Another number: its last digit changed (a number ending in 0 would stay the same with a 0).
  const other = `${destination.slice(0, -1)}${destination.endsWith("0") ? "1" : "0"}`;
  await page.getByLabel("Destination number").fill(other);
  await expect(page.getByTestId("rate-prefix")).toHaveCount(0);
  await expect(page.getByTestId("rate-stale")).toContainText("press");

  await page.getByLabel("Destination number").fill("44x");
  await expect(page.getByTestId("rate-stale")).toContainText("Correct");
  await expect(page.getByLabel("Destination number")).toHaveAttribute("aria-invalid", "true");
  await screenshot(page, "rate-calculator-stale");

  await page.getByLabel("Destination number").fill(destination);
  await expect(page.getByTestId("rate-prefix")).toBeVisible(); // back to the looked-up inputs
  await page.getByLabel(/Call duration/).fill("");
  await expect(page.getByTestId("rate-prefix")).toHaveCount(0);
});
