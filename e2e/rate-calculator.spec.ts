import { apiMicros, displayedMicros, expect, screenshot, test, type CallJson } from "./fixtures";

interface RateJson {
  destination: string;
  matchedPrefix: string;
  sellRate: number;
  billingIncrement: string;
  currency: string;
}

/** CONTRACT section 1, written out independently of the app's billing module. */
function expectedCharge(rate: number, increment: string, answered: number): { seconds: number; micros: bigint } {
  const [min, interval] = increment.split("/").map(Number);
  const seconds = answered <= 0 ? 0 : answered <= min ? min : min + Math.ceil((answered - min) / interval) * interval;
  const numerator = apiMicros(rate) * BigInt(seconds);
  return { seconds, micros: (numerator * 2n + 60n) / 120n };
}

test("a known destination gives its prefix, rate and the cost of the call; an unknown one a message", async ({ page, signIn, api }) => {
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
