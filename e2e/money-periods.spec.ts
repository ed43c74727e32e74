import { allCalls, apiMicros, displayedMicros, expect, roundedMicros, screenshot, test } from "./fixtures";

// What the portal says about money and time at a glance: one currency per figure, every total and chart with its
// period and zone, bad ranges caught at the form. Each of these failed on the portal before (see the commit).

interface UsageJson {
  rows: { key: string | null; label: string | null; currency: string; calls: number; price: number }[];
  totals: { currency: string; calls: number; price: number }[];
}

const SYMBOL = /[$€£¥]|[A-Z]{3}\u00a0/g;
/** The currency marks in a text: "$", "€", ... */
const currencyMarks = (text: string) => new Set(text.match(SYMBOL) ?? []);

/** Today and this month's first day of the demo accounts' own zone (UTC), which Reports and the dashboard follow. */
function todayAndMonthStart(): { today: string; monthStart: string } {
  const today = new Date().toISOString().slice(0, 10);
  return { today, monthStart: `${today.slice(0, 7)}-01` };
}

test("two currencies never share a chart, a table or a sort: one panel per currency", async ({ page, signIn, api }) => {
  const usage = await api<UsageJson>("platform", "/v1/usage?groupBy=account&timeZone=America/New_York");
  const currencies = usage.totals.map((t) => t.currency);
  expect(currencies.length, "the demo bills in several currencies").toBeGreaterThan(1);
  await signIn("platform");
  // Every account, all time: the view that drew euros and dollars on one axis.
  await page.goto("/reports?groupBy=account&from=&until=");
  const charts = page.getByTestId("report-chart");
  await expect(charts).toHaveCount(currencies.length);
  for (let i = 0; i < currencies.length; i++) {
    const chart = charts.nth(i);
    await expect(chart.getByTestId("report-bar").first()).toBeVisible();
    const marks = currencyMarks(
      await chart
        .getByTestId("report-bar")
        .allInnerTexts()
        .then((t) => t.join(" ")),
    );
    expect(marks.size, `chart ${i} draws one currency`).toBe(1);
  }
  // Each table holds one currency, said in its own column, and sorts within it.
  const panels = page.getByTestId("currency-panel");
  await expect(panels).toHaveCount(currencies.length);
  // Other specs post calls in parallel (a new account's, in USD): the API and the page are read again together
  // until they are of the same moment.
  await expect(async () => {
    const now = await api<UsageJson>("platform", "/v1/usage?groupBy=account&timeZone=America/New_York");
    await page.reload();
    await expect(panels).toHaveCount(currencies.length);
    for (let i = 0; i < currencies.length; i++) {
      const panel = panels.nth(i);
      const currency = await panel.getAttribute("data-currency");
      const cells = await panel.locator('td[data-column="currency"]').allInnerTexts();
      expect(cells.length).toBeGreaterThan(0);
      expect(new Set(cells)).toEqual(new Set([currency]));
      const total = now.totals.find((t) => t.currency === currency)!;
      expect(displayedMicros(await panel.getByTestId("report-total-price").innerText())).toBe(
        roundedMicros(apiMicros(total.price), 2),
      );
    }
  }).toPass();
  await screenshot(page, "reports-per-currency");

  // By day, all accounts: each day once per currency, never two bars of one day on one axis.
  await page.goto("/reports?groupBy=day&from=&until=");
  await expect(charts).toHaveCount(currencies.length);
  for (let i = 0; i < currencies.length; i++) {
    const labels = await charts.nth(i).getByTestId("report-bar").locator("span[title]").allInnerTexts();
    expect(new Set(labels).size).toBe(labels.length);
  }
});

test("every total and chart states its period and zone, and marks a period still running", async ({
  page,
  signIn,
  api,
}) => {
  await signIn("read");
  const { today, monthStart } = todayAndMonthStart();

  // Calls without a date filter: all time, said so.
  await page.goto("/calls");
  const totals = page.getByTestId("call-totals");
  await expect(totals.getByTestId("period-label")).toHaveText(/^All time, America\/New_York$/);
  await expect(totals.getByTestId("period-partial")).toContainText("to date");
  // A past range: its days and zone, not partial.
  await page.goto("/calls?from=2026-01-01&until=2026-01-31");
  await expect(totals.getByTestId("period-label")).toHaveText("1 – 31 Jan 2026, America/New_York");
  await expect(totals.getByTestId("period-partial")).toHaveCount(0);

  // Reports open on this month of the account's zone (not the viewer's), marked partial, and every total and chart
  // says so and whose zone it is.
  await page.goto("/reports");
  await expect(page.getByLabel(/^From/)).toHaveValue(monthStart);
  await expect(page.getByTestId("report-totals").first().getByTestId("period-label")).toContainText(
    "UTC (the account's time zone)",
  );
  await expect(page.getByTestId("report-chart").first().getByTestId("period-partial")).toBeVisible();
  // The month report marks the month that today is in as partial, and the first month when the calls begin
  // inside it (it holds only part of its days), each saying why.
  await page.goto(`/reports?groupBy=month&from=&until=`);
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const months = page.getByTestId("report-row");
  await expect(months.last()).toContainText(`${MONTHS[Number(today.slice(5, 7)) - 1]} ${today.slice(0, 4)}`);
  await expect(months.last()).toContainText("partial · to date");
  const byDay = await api<UsageJson>("read", "/v1/usage?groupBy=day&timeZone=UTC");
  const firstDay = byDay.rows[0].key!;
  if (!firstDay.endsWith("-01")) {
    const [y, m, d] = firstDay.split("-").map(Number);
    await expect(months.first()).toContainText(`partial · from ${d} ${MONTHS[m - 1]} ${y}`);
  }
  await screenshot(page, "reports-month-partial");

  // The dashboard's totals and chart name their 30 days in the account's zone.
  await page.goto("/");
  await expect(page.getByTestId("period-label").first()).toContainText("UTC (the account's time zone)");
});

test("From after Until is said beside the fields, and nothing is asked of the API", async ({ page, signIn }) => {
  await signIn("read");
  const asked: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/v1/calls" || url.pathname === "/v1/usage") asked.push(url.search);
  });
  await page.goto("/calls?from=2026-11-10&until=2026-11-01");
  const error = page.getByTestId("range-error");
  await expect(error).toContainText("From is after Until");
  await expect(page.getByLabel("From", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Until")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("could not be loaded")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);
  expect(asked.filter((q) => q.includes("2026-11-10"))).toEqual([]);
  await screenshot(page, "call-log-range-error");
  // Correcting a date brings the calls.
  await page.getByLabel("Until").fill("2026-11-30");
  await expect(error).toHaveCount(0);

  await page.goto("/reports?from=2026-11-10&until=2026-11-01");
  await expect(page.getByTestId("range-error")).toContainText("From is after Until");
  await expect(page.getByText("could not be loaded")).toHaveCount(0);
  // The download is still there (not hidden), off until the range is right.
  await expect(page.getByRole("button", { name: "Download CSV" })).toBeDisabled();
  await screenshot(page, "reports-range-error");
});

test("call outcomes people read, numbers in E.164 with their destination, the raw cause in the detail", async ({
  page,
  signIn,
  api,
}) => {
  const [calls] = await Promise.all([allCalls(api, "read", "direction=outbound"), signIn("read")]);
  // A busy call to a destination the card names (unrated calls' numbers have no name).
  const busy = calls.find((c) => c.hangupCause === "USER_BUSY" && c.rated)!;
  await page.goto(`/calls?q=${busy.id}&by=id`);
  const row = page.locator(`tr[data-call-id="${busy.id}"]`);
  await expect(row.locator('td[data-column="status"]')).toHaveText("Busy");
  await expect(row.locator('td[data-column="to"]')).toContainText(`+${busy.to}`);
  // The destination's name from the rate card, next to the number.
  await expect(row.locator('td[data-column="to"] span span').nth(1)).not.toBeEmpty();
  await row.click();
  const detail = page.getByTestId("call-detail");
  await expect(detail.getByTestId("call-status")).toHaveText("Busy");
  await expect(detail).toContainText("USER_BUSY");
  // A free call is written in the currency's decimals.
  await expect(detail).toContainText("$0.00");
});
