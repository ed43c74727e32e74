import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { freePort } from "@/lib/testing/next-server";
import { startWebhookWorker } from "./delivery";
import { addWebhookEndpoint, setBalanceThresholds } from "./webhooks";

const RECEIVER = path.join(__dirname, "testing/receiver.mjs");

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describeOnEngines("webhook delivery with the receiver killed mid-delivery,", (handle) => {
  let stateDir: string;
  const children: ChildProcess[] = [];
  const saved = process.env.WEBHOOKS_ALLOW_PRIVATE;
  beforeAll(async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = "1";
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-receiver-"));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    if (saved === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE;
    else process.env.WEBHOOKS_ALLOW_PRIVATE = saved;
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  async function startReceiver(port: number, secret: string, env: Record<string, string> = {}): Promise<ChildProcess> {
    fs.rmSync(path.join(stateDir, "listening"), { force: true });
    const child = spawn(process.execPath, [RECEIVER, String(port), stateDir, secret], {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    children.push(child);
    await until("the receiver to listen", () => lines(path.join(stateDir, "listening")).length > 0, 20_000);
    return child;
  }

  it("loses nothing and processes nothing twice: each webhook-id is processed exactly once, the interrupted one is redelivered", async () => {
    const port = await freePort();
    const group = await createBillingGroup(handle().db, {
      name: "Kill",
      currency: "USD",
      openingBalanceMicros: 10_000_000n,
      creditLimitMicros: 100_000_000n,
    });
    const endpoint = await addWebhookEndpoint(handle().db, {
      url: `http://127.0.0.1:${port}/hook`,
      billingGroupId: group.id,
    });
    const secret = endpoint.secrets[0].secret;
    await setBalanceThresholds(handle().db, group.id, [5_000_000n]);
    let low = false;
    const crossings = async (n: number) => {
      for (let i = 0; i < n; i++) {
        low = !low;
        await handle().db.execute(
          sql`UPDATE billing_groups SET balance_micros = ${low ? 1_000_000 : 9_000_000} WHERE id = ${group.id}`,
        );
      }
    };
    await crossings(20);

    const first = await startReceiver(port, secret, { HANG_AT: "5" });
    const worker = startWebhookWorker(
      handle().db,
      { retryBaseMs: 100, retryCapMs: 400, maxAttempts: 1000, leaseMs: 120_000, timeoutMs: 60_000, concurrency: 2 },
      50,
    );
    try {
      // The 5th message is processed, then the receiver dies before answering it.
      await until("the receiver to hang on a message", () => lines(path.join(stateDir, "hanging")).length > 0);
      first.kill("SIGKILL");
      await until("the receiver to die", () => first.signalCode !== null);
      await crossings(10); // events while the receiver is down: refused connections, retried
      await startReceiver(port, secret);
      await until("every delivery to succeed", async () => {
        const [row] = await queryRows<{ open: number | bigint }>(
          handle().db,
          sql`SELECT count(*) AS open FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id} AND delivered_at IS NULL`,
        );
        return Number(row.open) === 0;
      });
    } finally {
      await worker.stop();
    }

    const events = await queryRows<{ id: string }>(
      handle().db,
      sql`SELECT id FROM webhook_events WHERE billing_group_id = ${group.id}`,
    );
    expect(events).toHaveLength(30);
    const processed = lines(path.join(stateDir, "processed"));
    expect(processed).toHaveLength(30); // nothing doubled
    expect(new Set(processed)).toEqual(new Set(events.map((e) => e.id))); // nothing lost
    expect(lines(path.join(stateDir, "rejected"))).toEqual([]); // every signature verified
    const [hanging] = lines(path.join(stateDir, "hanging"));
    expect(lines(path.join(stateDir, "redelivered"))).toContain(hanging); // retried with the same webhook-id, deduped
  }, 120_000);
});
