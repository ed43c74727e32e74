import fs from "node:fs";
import { adminCli, expect, screenshot, test } from "./fixtures";

// Self-service keys in the portal (docs/contract.md §13): a session with keys:write makes a key, sees its secret
// once, the key works against /v1, is revoked, and is refused; the audit log shows both changes.

test("create a key, see its secret once, use it, revoke it, see it refused and audited", async ({
  page,
  playwright,
  signIn,
  e2e,
}) => {
  test.skip(!e2e.dataDir, "needs the suite's own server (the admin CLI makes the signing-in key)");
  const group = e2e.keys.read.billingGroupId!;
  const admin = adminCli(e2e, [
    "keys",
    "create",
    "--scopes",
    "calls:read,keys:write,audit:read",
    "--group",
    group,
    "--name",
    "e2e key admin",
  ]) as { key: string; id: string };
  await signIn({ key: admin.key });

  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(page.locator(`[data-key-id="${admin.id}"]`)).toBeVisible();

  await page.getByLabel("Name").fill("e2e robot");
  await expect(page.getByRole("checkbox", { name: /calls:read/ }).first()).toBeChecked();
  await page.getByRole("button", { name: "Create key" }).click();
  const secretBox = page.getByTestId("new-key-secret");
  await expect(secretBox).toHaveText(/^ck_[0-9A-Za-z]{38}$/);
  const secret = (await secretBox.textContent())!;
  await expect(page.getByText("this is the only time it is shown")).toBeVisible();
  await screenshot(page, "api-keys-created");

  // The key works against /v1, as any program would use it.
  const client = await playwright.request.newContext({
    baseURL: e2e.baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${secret}` },
  });
  expect((await client.get("/v1/calls?pageSize=1")).status()).toBe(200);

  // Shown once: gone after Done, and not in the page after a reload.
  await page.getByRole("button", { name: "Done" }).click();
  await expect(secretBox).toHaveCount(0);
  const row = page.locator("tr", { hasText: "e2e robot" });
  // Its last use is written in the background (docs/contract.md §13): reload until the list shows it.
  await expect
    .poll(async () => {
      await page.reload();
      return row.getByTestId("last-used").textContent();
    })
    .not.toBe("Never");
  expect(await page.content()).not.toContain(secret);

  const robotId = (await row.getAttribute("data-key-id"))!;
  await row.getByRole("button", { name: "Revoke e2e robot" }).click();
  await expect(row.getByRole("group", { name: "Confirm revocation" })).toBeVisible();
  await screenshot(page, "api-keys-confirm-revoke");
  await row.getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByTestId("key-status")).toHaveText("Revoked");
  expect((await client.get("/v1/calls?pageSize=1")).status()).toBe(401);
  await client.dispose();

  await nav.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
  const events = page.getByTestId("audit-events");
  // The robot's creation and revocation, by the signed-in key, from the browser's address.
  for (const action of ["api_key.created", "api_key.revoked"]) {
    const event = events.locator(`tr[data-event-action="${action}"]`, { hasText: robotId });
    await expect(event).toHaveCount(1);
    await expect(event).toContainText("e2e key admin (API key)");
    await expect(event).toContainText("127.0.0.1");
  }
  // The signing-in key itself was made by the operator's CLI.
  await expect(events.locator('tr[data-event-action="api_key.created"]', { hasText: admin.id })).toContainText(
    "Operator CLI",
  );
  await screenshot(page, "audit-log");

  // The CSV of the same log.
  const download = page.waitForEvent("download");
  await page.getByTestId("audit-csv").click();
  const csv = fs.readFileSync(await (await download).path(), "utf8");
  expect(csv.split("\r\n")[0]).toContain("occurredAt");
  expect(csv).toContain("api_key.revoked");
});

test("sessions without the scopes see neither page", async ({ page, signIn }) => {
  // The viewer (the read key's person): the cost key's person is the group's owner, who holds both scopes.
  await signIn("read");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Calls" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "Audit log" })).toHaveCount(0);
  expect((await page.goto("/api-keys"))?.status()).toBe(404);
  expect((await page.goto("/audit"))?.status()).toBe(404);
});
