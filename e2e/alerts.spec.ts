import http from "node:http";
import type { AddressInfo } from "node:net";
import { expectNoSeriousFindingsAtBothSizes } from "./axe";
import { verifyWebhook } from "../lib/alerts/signing";
import { expect, screenshot, test } from "./fixtures";

// A customer's admin (the demo reseller, an owner) sets a low-balance threshold and a webhook endpoint on a receiver
// this test runs on 127.0.0.1 (the suite's server allows private targets: WEBHOOKS_ALLOW_PRIVATE=1 in
// e2e/global-setup.ts), sends a test event, the receiver gets it signed with the secret the page showed once, and
// the delivery log shows the attempt with status 200.

interface Received {
  headers: Record<string, string>;
  body: string;
}

test("a customer admin sets a threshold and a webhook endpoint, sends a test event and sees it delivered", async ({
  page,
  signInAs,
}) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbook-hooks`;
  try {
    await signInAs("reseller");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
    await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();

    const amounts = page.getByLabel(/Thresholds.*comma-separated/);
    await expect(amounts).toBeEnabled();
    // The forms say whose thresholds and endpoints these are, by name; no id is text a person reads.
    const { accounts } = (await (await page.request.get("/v1/accounts")).json()) as {
      accounts: { id: string; name: string }[];
    };
    expect(accounts).toHaveLength(1);
    await expect(page.getByTestId("thresholds-account")).toHaveText(`For ${accounts[0].name}`);
    await expect(page.getByTestId("endpoint-account")).toContainText(accounts[0].name);
    expect(await page.getByRole("main").innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
    await amounts.fill("50, 10");
    await page.getByRole("button", { name: "Save thresholds" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Thresholds saved." })).toBeVisible();
    await expect(page.getByTestId("thresholds").getByRole("listitem")).toHaveCount(2);
    // Read like the balance beside them: the currency's sign and minor units, not "50 USD".
    await expect(page.getByTestId("thresholds").getByRole("listitem").first()).toHaveText(/^[$€]50\.00\b/);

    // A loopback URL is refused on a production server; this suite's server allows it for the local receiver.
    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByLabel("Description (optional)").fill("Billing system");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByTestId("new-endpoint-secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    await screenshot(page, "alerts-secret-once");
    await page.getByRole("button", { name: "Done" }).click();
    await expect(page.getByTestId("new-endpoint-secret")).toHaveCount(0);

    const row = page.locator("[data-endpoint-id]").filter({ hasText: url });
    await expect(row).toHaveCount(1);
    await expect(row).not.toContainText(secret);
    await row.getByRole("button", { name: "Send test event" }).click();

    // The receiver gets it, signed with the secret shown once.
    await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const [message] = received;
    expect(JSON.parse(message.body)).toMatchObject({ type: "webhook.test" });
    expect(verifyWebhook(secret, message.headers, message.body)).toBe(true);

    // The delivery log shows the attempt: delivered, 200, how long it took, the answer's start.
    const delivery = row.locator(`[data-event-id="${message.headers["webhook-id"]}"]`);
    await expect(delivery.getByTestId("delivery-status")).toHaveText("Delivered", { timeout: 30_000 });
    const attempt = delivery.getByTestId("delivery-attempt");
    await expect(attempt).toHaveCount(1);
    await expect(attempt.getByTestId("attempt-status")).toHaveText("200");
    await expect(attempt).toContainText(/\d+ ms/);
    await expect(attempt).toContainText('{"received":true}');
    await screenshot(page, "alerts-delivery-log");

    // Resend: a second attempt of the same event.
    await delivery.getByRole("button", { name: /Resend/ }).click();
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
    expect(received[1].headers["webhook-id"]).toBe(message.headers["webhook-id"]);
    await expect(delivery.getByTestId("delivery-attempt")).toHaveCount(2, { timeout: 30_000 });

    // Disable, then delete after confirming.
    await row.getByRole("button", { name: "Disable" }).click();
    await expect(row.getByTestId("endpoint-state")).toContainText("Disabled");
    await row.getByRole("button", { name: `Delete ${url}` }).click();
    await row.getByRole("button", { name: "Delete endpoint" }).click();
    await expect(page.locator("[data-endpoint-id]").filter({ hasText: url })).toHaveCount(0);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("platform staff pick an account with the switcher and set its thresholds", async ({ page, useSessionOf }) => {
  await useSessionOf("platform");
  const { accounts } = (await (await page.request.get("/v1/accounts")).json()) as {
    accounts: { id: string; name: string; currency: string }[];
  };
  const chosen = accounts[accounts.length - 1];
  await page.goto("/alerts");
  await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();
  // No account yet: the endpoint form says it is platform-wide, and the switcher is there to pick one.
  await expect(page.getByTestId("endpoint-account")).toContainText("Platform-wide");
  await page.getByLabel("Account", { exact: true }).selectOption({ label: `${chosen.name} (${chosen.currency})` });
  await page.waitForURL((url) => url.searchParams.get("account") === chosen.id);
  await expect(page.getByTestId("thresholds-account")).toHaveText(`For ${chosen.name}`);
  await expect(page.getByTestId("thresholds-account").locator("span")).toHaveAttribute("title", chosen.id);
  await expect(page.getByTestId("endpoint-account")).toContainText(chosen.name);

  const amounts = page.getByLabel(/Thresholds.*comma-separated/);
  await expect(amounts).toBeEnabled();
  await amounts.fill("25");
  await page.getByRole("button", { name: "Save thresholds" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Thresholds saved." })).toBeVisible();
  await expect(page.getByTestId("thresholds").getByRole("listitem")).toHaveCount(1);
  const saved = (await (await page.request.get(`/v1/alert-thresholds?account=${chosen.id}`)).json()) as {
    thresholds: { amount: number }[];
  };
  expect(saved.thresholds.map((t) => t.amount)).toEqual([25]);
  expect(await page.getByRole("main").innerText()).not.toMatch(/\b(bg|sup)_[a-z0-9]/);
  await screenshot(page, "alerts-platform-account");
  await expectNoSeriousFindingsAtBothSizes(page);

  // Leave the account as the other specs expect it: no thresholds.
  await amounts.fill("");
  await page.getByRole("button", { name: "Save thresholds" }).click();
  await expect(page.getByTestId("thresholds")).toHaveCount(0);
});

test("the Alerts page is not in reach of a viewer", async ({ page, signInAs }) => {
  await signInAs("viewer");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" })).toHaveCount(0);
  const response = await page.goto("/alerts");
  expect(response?.status()).toBe(404);
});
