import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { openTestDb } from "@/lib/testing/engines";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

describe("admin: webhooks and group thresholds", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb("pglite");
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await handle?.close();
  });
  const run = (argv: string[]) => runAdminCommand(handle.db, argv) as Promise<Record<string, unknown>>;

  it("adds (refusing private targets unless allowed), lists without full secrets, rotates and removes endpoints", async () => {
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", undefined);
    await expect(run(["webhooks", "add", "--url", "http://127.0.0.1:8080/hook"])).rejects.toThrow(UsageError);
    await expect(run(["webhooks", "add", "--url", "http://169.254.169.254/"])).rejects.toThrow(/non-public address/);
    vi.stubEnv("WEBHOOKS_ALLOW_PRIVATE", "1");
    const added = await run(["webhooks", "add", "--url", "http://127.0.0.1:8080/hook", "--description", "ops"]);
    const secrets = added.secrets as { secret: string }[];
    expect(added).toMatchObject({ url: "http://127.0.0.1:8080/hook", billingGroupId: null, description: "ops" });
    expect(secrets[0].secret).toMatch(/^whsec_/);
    const listed = (await run(["webhooks", "list"])).endpoints as { id: string; secrets: { secret: string }[] }[];
    expect(listed.find((e) => e.id === added.id)?.secrets[0].secret).toBe(`${secrets[0].secret.slice(0, 10)}...`);
    const rotated = await run(["webhooks", "rotate-secret", "--id", String(added.id), "--overlap-hours", "1"]);
    expect(
      (rotated.secrets as { secret: string; expiresAt: string | null }[]).map((s) => s.expiresAt === null),
    ).toEqual([false, true]);
    await expect(run(["webhooks", "add", "--url", "http://x/", "--group", "bg_missing"])).rejects.toThrow(
      /no billing group/,
    );
    const typed = await run([
      "webhooks",
      "add",
      "--url",
      "http://127.0.0.1:8080/x",
      "--events",
      "balance.low,group.enabled",
    ]);
    expect(typed).toMatchObject({ eventTypes: ["balance.low", "group.enabled"], disabled: false });
    await expect(
      run(["webhooks", "add", "--url", "http://127.0.0.1:8080/x", "--events", "balance.lower"]),
    ).rejects.toThrow(UsageError);
    expect(await run(["webhooks", "remove", "--id", String(typed.id)])).toEqual({ id: typed.id, removed: true });
    expect(await run(["webhooks", "remove", "--id", String(added.id)])).toEqual({ id: added.id, removed: true });
    // Audited with the CLI as actor, as the same changes over /v1 are with their key or person.
    const audited = await queryRows<{ action: string; actor_type: string }>(
      handle.db,
      sql`SELECT action, actor_type FROM audit_events WHERE target_id = ${String(added.id)} ORDER BY id`,
    );
    expect(audited).toEqual([
      { action: "webhook_endpoint.created", actor_type: "cli" },
      { action: "webhook_endpoint.deleted", actor_type: "cli" },
    ]);
    await expect(run(["webhooks", "remove", "--id", String(added.id)])).rejects.toThrow(UsageError);
  });

  it("sets, lists and clears a group's thresholds; each starts crossed when the balance is already at or below it", async () => {
    const group = await createBillingGroup(handle.db, {
      name: "T",
      currency: "USD",
      openingBalanceMicros: 20_000_000n,
    });
    expect(await run(["groups", "thresholds", "--group", group.id, "--set", "10, 50,20"])).toEqual({
      billingGroupId: group.id,
      thresholds: [
        { threshold: "50", crossed: true },
        { threshold: "20", crossed: true },
        { threshold: "10", crossed: false },
      ],
    });
    expect(((await run(["groups", "thresholds", "--group", group.id])).thresholds as unknown[]).length).toBe(3);
    await expect(run(["groups", "thresholds", "--group", group.id, "--set", "ten"])).rejects.toThrow(UsageError);
    await expect(run(["groups", "thresholds", "--group", "bg_missing", "--set", "1"])).rejects.toThrow(UsageError);
    expect((await run(["groups", "thresholds", "--group", group.id, "--clear"])).thresholds).toEqual([]);
    const changes = await queryRows<{ action: string }>(
      handle.db,
      sql`SELECT action FROM audit_events WHERE billing_group_id = ${group.id} AND action = 'alert_threshold.changed'`,
    );
    expect(changes).toHaveLength(2);
  });
});
