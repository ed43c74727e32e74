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
  for (const r of rows) {
    const call = byId.get(r.id)!;
    if (call.rated) {
      // At least the currency's 2 decimals ("$0.00" for a free call), more only where the amount has them.
      expect(r.cells.price, r.id).toMatch(/^-?[$€]\d[\d,]*\.\d{2,6}$/);
      expect(displayedMicros(r.cells.price)).toBe(apiMicros(call.price));
    } else expect(r.cells.price).toBe("Unrated");
  }

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

  // Persisted: the dashboard and a reload show UTC too, in the same format.
  await page.goto("/");
  await expect(page.getByTestId("latest-calls").locator("th").first()).toHaveText(/\(UTC\)/i);
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toContainText(inZone("UTC"));
  await page.getByTestId("tz-switch").getByRole("button", { name: "Local" }).click();
  await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toContainText(inZone("America/New_York"));

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
