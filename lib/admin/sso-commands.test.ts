import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import type { DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

process.env.SESSION_SECRET ??= "sso-commands-test-secret";

describe("admin: people sso set, show and remove", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb("pglite");
  });
  afterAll(async () => {
    await handle?.close();
  });
  const run = (argv: string[]) => runAdminCommand(handle.db, argv) as Promise<Record<string, unknown>>;

  it("sets a provider with domains, never prints the secret, refuses bad input with a usage error", async () => {
    const group = await createBillingGroup(handle.db, { name: "SSO", currency: "USD" });
    const base = ["people", "sso", "set", "--group", group.id, "--issuer", "https://idp.example.com"];
    const set = await run([
      ...base,
      "--client-id",
      "cb",
      "--client-secret",
      "s3cret-value",
      "--domain",
      "Example.COM,example.org",
    ]);
    expect(set).toMatchObject({
      issuer: "https://idp.example.com",
      clientId: "cb",
      domains: ["example.com", "example.org"],
      defaultRole: "viewer",
      clientSecret: "set",
      redirectPath: "/session/sso/callback",
    });
    // Changing the default role keeps the stored secret.
    expect(
      await run([...base, "--client-id", "cb", "--domain", "example.com", "--default-role", "developer"]),
    ).toMatchObject({
      domains: ["example.com"],
      defaultRole: "developer",
    });
    const shown = await run(["people", "sso", "show", "--group", group.id]);
    expect(JSON.stringify(shown)).not.toContain("s3cret-value");
    await expect(
      run([...base, "--client-id", "cb", "--domain", "example.com", "--default-role", "owner"]),
    ).rejects.toThrow(UsageError);
    await expect(run([...base, "--client-id", "cb"])).rejects.toThrow(UsageError);
    await expect(
      run([
        "people",
        "sso",
        "set",
        "--platform",
        "--issuer",
        "https://idp.example.com",
        "--client-id",
        "x",
        "--domain",
        "y.test",
      ]),
    ).rejects.toThrow(/client-secret/);
    expect(await run(["people", "sso", "remove", "--group", group.id])).toEqual({
      organization: group.id,
      removed: true,
    });
    await expect(run(["people", "sso", "show", "--group", group.id])).rejects.toThrow(UsageError);
  });
});
