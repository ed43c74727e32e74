import { apiMicros, displayedMicros, expect, screenshot, test, type CallJson } from "./fixtures";

interface RateJson {
  destination: string;
  matchedPrefix: string;
  sellRate: number;
  billingIncrement: string;
  currency: string;
}

/** docs/contract.md §1, written out independently of the app's billing module. */
function expectedCharge(rate: number, increment: string, answered: number): { seconds: number; micros: bigint } {
  const [min, interval] = increment.split("/").map(Number);
  const seconds = answered <= 0 ? 0 : answered <= min ? min : min + Math.ceil((answered - min) / interval) * interval;
  const numerator = apiMicros(rate) * BigInt(seconds);
  return { seconds, micros: (numerator * 2n + 60n) / 120n };
}

test("a known destination gives its prefix, rate and the cost of the call; an unknown one a message", async ({
  page,
  signIn,
  api,
}) => {
  await signIn("read");
  const { calls } = await api<{ calls: CallJson[] }>("read", "/v1/calls?pageSize=50&direction=outbound");
  const destination = calls[0].to;
  const rate = await api<RateJson>("read", `/v1/rates?destination=${destination}`);
  const answered = 125;
  const charge = expectedCharge(rate.sellRate, rate.billingIncrement, answered);

  await page.goto("/rates");
  await page.getByLabel("Destination number").fill(destination);
  await page.getByLabel(/Call duration/).fill(String(answered));
  await page.getByRole("button", { name: "Look up rate" }).click();

  await expect(page.getByTestId("rate-prefix")).toHaveText(rate.matchedPrefix);
  expect(displayedMicros(await page.getByTestId("rate-sell").innerText())).toBe(apiMicros(rate.sellRate));
  await expect(page.getByTestId("rate-increment")).toContainText(rate.billingIncrement);
  await expect(page.getByTestId("rate-billable")).toHaveText(String(charge.seconds));
  expect(displayedMicros(await page.getByTestId("rate-cost").innerText())).toBe(charge.micros);
  await screenshot(page, "rate-calculator");

  // Changing the duration re-prices in the browser, no new lookup needed.
  await page.getByLabel(/Call duration/).fill("0");
  await expect(page.getByTestId("rate-billable")).toHaveText("0");
  expect(displayedMicros(await page.getByTestId("rate-cost").innerText())).toBe(0n);

  // The lookup survives a reload (it lives in the URL).
  await page.reload();
  await expect(page.getByTestId("rate-prefix")).toHaveText(rate.matchedPrefix);

  await page.getByLabel("Destination number").fill("0009876");
  await page.getByRole("button", { name: "Look up rate" }).click();
  await expect(page.getByTestId("no-rate")).toContainText("No rate for 0009876");
  await screenshot(page, "rate-calculator-no-rate");
});

test("a number pasted with spaces, dashes, dots and brackets is looked up as its digits", async ({
  page,
  signIn,
  api,
}) => {
  await signIn("read");
  const { calls } = await api<{ calls: CallJson[] }>("read", "/v1/calls?pageSize=50&direction=outbound");
  const digits = calls[0].to.replace(/^\+/, "");
  const rate = await api<RateJson>("read", `/v1/rates?destination=${digits}`);
  // As people write it: "+44 (20) 7946.0000-..." (country code, bracketed area, dotted and dashed groups).
  const pasted = `+${digits.slice(0, 2)} (${digits.slice(2, 4)}) ${digits.slice(4, 7)}.${digits.slice(7, 9)}-${digits.slice(9)}`;

  await page.goto("/rates");
  await page.getByLabel("Destination number").fill(pasted);
  await expect(page.getByLabel("Destination number")).not.toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Look up rate" }).click();
  await expect(page.getByTestId("rate-prefix")).toHaveText(rate.matchedPrefix);
  await expect(page).toHaveURL(new RegExp(`[?&]destination=%2B${digits}(&|$)`));
});

test("a rate with a connect fee and a minimum charge prices the call part by part (README price rule)", async ({
  page,
  signIn,
}) => {
  await signIn("read");
  // The demo cards carry no fees: answer this lookup with a rate that has them, as GET /v1/rates would.
  await page.route(/\/v1\/rates\?destination=/, (route) =>
    route.fulfill({
      contentType: "application/json",
      body: JSON.stringify({
        destination: "4915112345678",
        matchedPrefix: "49151",
        sellRate: 0.0123,
        billingIncrement: "60/60",
        connectFee: 0.005,
        minCharge: 0.05,
        effectiveFrom: "2026-06-01T00:00:00.000Z",
        currency: "EUR",
      }),
    }),
  );
  await page.goto("/rates");
  await page.getByLabel("Destination number").fill("4915112345678");
  await page.getByLabel(/Call duration/).fill("61");
  await page.getByRole("button", { name: "Look up rate" }).click();

  // 61 s on 60/60 -> 120 s: 0.0123 x 2 = 0.0246, + 0.005 = 0.0296 < 0.05: the minimum applies.
  await expect(page.getByTestId("rate-billable")).toHaveText("120");
  expect(displayedMicros(await page.getByTestId("rate-connect-fee").innerText())).toBe(5_000n);
  expect(displayedMicros(await page.getByTestId("rate-min-charge").innerText())).toBe(50_000n);
  expect(displayedMicros(await page.getByTestId("rate-cost").innerText())).toBe(50_000n);
  await expect(page.getByTestId("rate-cost-parts")).toContainText("Minimum charge");
  await expect(page.getByTestId("rate-effective-from")).toContainText("2026-06-01");

  // 240 s: 0.0123 x 4 = 0.0492, + 0.005 = 0.0542 above the minimum.
  await page.getByLabel(/Call duration/).fill("240");
  expect(displayedMicros(await page.getByTestId("rate-cost").innerText())).toBe(54_200n);
  await expect(page.getByTestId("rate-cost-parts")).toContainText("Per-minute part");

  // Unanswered: no connect fee, no minimum.
  await page.getByLabel(/Call duration/).fill("0");
  expect(displayedMicros(await page.getByTestId("rate-cost").innerText())).toBe(0n);
  await expect(page.getByTestId("rate-cost-parts")).toHaveCount(0);
});
