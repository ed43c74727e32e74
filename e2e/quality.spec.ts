import { randomUUID } from "node:crypto";
import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import { expect, screenshot, test } from "./fixtures";

// A customer's person (the demo viewer) opens Quality from the navigation and sees ASR and ACD per destination prefix
// of the account's outbound calls over the window: the calls this test sends through the switch's key (5 to one
// London number, 2 answered) among them, with the same numbers GET /v1/quality answers the account's key.

interface QualityWindow {
  prefix?: string | null;
  attempts: number;
  answered: number;
  asr: number | null;
}

test("a customer's person sees ASR and ACD per prefix of the account's recent calls", async ({
  page,
  signIn,
  api,
  e2e,
  playwright,
}) => {
  const switchApi = await playwright.request.newContext({
    baseURL: e2e.baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${e2e.keys.ingest.key}` },
  });
  const start = Date.now() - 5 * 60_000;
  const at = (ms: number) => new Date(start + ms).toISOString();
  for (const answered of [true, true, false, false, false]) {
    const res = await switchApi.post("/v1/cdrs", {
      data: {
        uuid: randomUUID(),
        direction: "outbound",
        from: "15550100",
        to: "442079460123",
        startTime: at(0),
        answerTime: answered ? at(3_000) : null,
        endTime: answered ? at(63_000) : at(3_000),
        pdd: 2,
        billingGroupId: e2e.keys.read.billingGroupId,
      },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  await switchApi.dispose();
  const { windows } = await api<{ windows: QualityWindow[] }>("read", "/v1/quality?window=15m&groupBy=prefix");
  expect(windows.reduce((n, w) => n + w.attempts, 0)).toBeGreaterThanOrEqual(5);

  await signIn("read");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Quality" }).click();
  await expect(page.getByRole("heading", { name: "Quality", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Last 15 minutes" }).click();
  await expect(page.getByRole("link", { name: "Last 15 minutes" })).toHaveAttribute("aria-current", "page");
  const table = page.getByTestId("quality-table");
  await expect(table.getByRole("row")).toHaveCount(windows.length + 1);
  for (const w of windows) {
    const row = table.getByRole("row", { name: new RegExp(`^${w.prefix ?? "unrated"} `) });
    await expect(row.getByRole("cell").nth(0)).toHaveText(String(w.attempts));
    await expect(row.getByRole("cell").nth(2)).toHaveText(w.asr === null ? "–" : `${w.asr.toFixed(2)}%`);
  }
  const asrChart = page.getByTestId("quality-asr");
  await expect(asrChart.getByRole("listitem").first()).toBeAttached();
  await expect(page.getByTestId("quality-acd")).toBeVisible();
  await screenshot(page, "quality");
  await expectNoSeriousFindingsAtBothSizes(page);
});
