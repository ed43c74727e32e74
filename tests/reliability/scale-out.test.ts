import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "@/lib/admin/commands";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { freePort } from "@/lib/testing/next-server";
import { AppServer, Store, bearer, http, ledgerDefects, ledgerOf, postCdrs, sleep, type HttpResult } from "./harness";
import { makeCdr, rateRows, SELL_CARD } from "./seed";

/**
 * Two `next start` processes on one PostgreSQL behind ONE port (a round-robin TCP proxy on 127.0.0.1, one upstream
 * per new connection), REDIS_URL set (README "Scale-out"):
 * 1. concurrent single-CDR and batch ingest through the port (with replays of the same calls racing on both
 *    processes): every call stored once, one 201 per uuid, balance == opening - prices == ledger exactly;
 * 2. a rate deck imported through the admin command is answered by both processes (GET /v1/rates, and the rating of
 *    a call each of them ingests after the import) without a restart: the NOTIFY that invalidates their caches;
 * 3. the rate limit is one bucket in Redis: with a burst of N and a refill far below one token per test, N + 40
 *    quick requests sent alternately to the two processes are N admitted and 40 refused.
 */

const SINGLES = 160;
const REPLAYS = 40;
const BATCHES = 4;
const BATCH_SIZE = 50;
const BURST = 300; // RATE_LIMIT_BURST of every key: the ingest key's 204 requests fit
const OVER = 40;

/** Round-robin TCP proxy: each new connection goes to the next upstream. Counts connections per upstream. */
class RoundRobinProxy {
  readonly connections: number[];
  private next = 0;
  private readonly sockets = new Set<net.Socket>();
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    upstreams: number,
  ) {
    this.connections = new Array<number>(upstreams).fill(0);
  }

  static async start(ports: number[]): Promise<RoundRobinProxy> {
    const server = net.createServer();
    const port = await freePort();
    const proxy = new RoundRobinProxy(server, port, ports.length);
    server.on("connection", (client) => {
      const i = proxy.next++ % ports.length;
      proxy.connections[i]++;
      const upstream = net.connect(ports[i], "127.0.0.1");
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on("close", () => proxy.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    return proxy;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let i = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (i < tasks.length) {
        const k = i++;
        out[k] = await tasks[k]();
      }
    }),
  );
  return out;
}

describe("two app processes behind one port on postgres, with Redis", () => {
  let store: Store;
  let db: DbHandle;
  const servers: AppServer[] = [];
  let proxy: RoundRobinProxy;
  let groupId = "";
  const keys = { ingest: "", rates: "", limited: "" };

  beforeAll(async () => {
    store = await Store.create("postgres", "scaleout");
    db = await store.open();
    const group = await createBillingGroup(db.db, {
      name: "Scale",
      currency: "USD",
      openingBalanceMicros: 1_000_000_000n,
    });
    groupId = group.id;
    await importSellRates(db.db, group.id, rateRows(SELL_CARD));
    for (const name of Object.keys(keys) as (keyof typeof keys)[]) {
      keys[name] = (await createApiKey(db.db, { scopes: ["cdrs:write", "calls:read"], billingGroupId: group.id })).key;
    }
    const env = {
      REDIS_URL: "redis://127.0.0.1:6379",
      RATE_LIMIT_RPS: "0.001", // one token per 1000 s: a burst is all a key gets during this test
      RATE_LIMIT_BURST: String(BURST),
      SESSION_SECRET: "s".repeat(64),
      CURSOR_SECRET: "c".repeat(64),
    };
    servers.push(...(await Promise.all([AppServer.start(store, { env }), AppServer.start(store, { env })])));
    proxy = await RoundRobinProxy.start(servers.map((s) => s.port));
  }, 6 * 60_000);

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    await db?.close();
    await store?.dispose();
  });

  it("concurrent single and batch ingest through both processes: every call once, balance == ledger exactly", async () => {
    const singles = Array.from({ length: SINGLES }, (_, i) => makeCdr("so-single", i, groupId, null));
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      Array.from({ length: BATCH_SIZE }, (_, i) => makeCdr(`so-batch${b}`, i, groupId, null)),
    );
    const tasks: (() => Promise<[string, HttpResult]>)[] = [
      ...singles.map(
        (c) => async () => [c.uuid, await postCdrs(proxy.baseUrl, keys.ingest, c)] as [string, HttpResult],
      ),
      // the same calls again, racing with the first posts on whichever process the connection lands
      ...singles
        .slice(0, REPLAYS)
        .map((c) => async () => [c.uuid, await postCdrs(proxy.baseUrl, keys.ingest, c)] as [string, HttpResult]),
      ...batches.map(
        (cdrs, b) => async () =>
          [`batch${b}`, await postCdrs(proxy.baseUrl, keys.ingest, { cdrs })] as [string, HttpResult],
      ),
    ];
    // shuffle deterministically so replays and batches interleave with the first posts
    const order = tasks
      .map((t, i) => [((i * 7919) % 1009) / 1009, t] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, t]) => t);
    const answers = await pool(order, 32);

    const created = new Map<string, number>();
    for (const [uuid, res] of answers) {
      expect([200, 201], `${uuid}: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
      if (uuid.startsWith("batch")) {
        expect((res.json as { summary: { created: number } }).summary.created).toBe(BATCH_SIZE);
      } else if (res.status === 201) {
        created.set(uuid, (created.get(uuid) ?? 0) + 1);
      }
    }
    expect(created.size).toBe(SINGLES); // exactly one 201 per call, whichever process answered
    expect([...created.values()].every((n) => n === 1)).toBe(true);
    expect(Math.min(...proxy.connections)).toBeGreaterThan(0); // both processes took requests

    const [{ calls, distinct }] = await queryRows<{ calls: bigint; distinct: bigint }>(
      db.db,
      sql`SELECT count(*)::bigint AS calls, count(DISTINCT uuid)::bigint AS distinct FROM calls WHERE billing_group_id = ${groupId}`,
    );
    expect(Number(calls)).toBe(SINGLES + BATCHES * BATCH_SIZE);
    expect(Number(distinct)).toBe(SINGLES + BATCHES * BATCH_SIZE);
    const ledger = await ledgerOf(db.db);
    expect(ledgerDefects(ledger)).toEqual([]);
    const mine = ledger.find((g) => g.id === groupId)!;
    expect(mine.charged).toBeGreaterThan(0n);
    expect(mine.balance).toBe(1_000_000_000n - mine.charged);
  });

  it("a rate deck imported through the admin command is answered by both processes without a restart", async () => {
    const rate = async (server: AppServer) => {
      const res = await http(server.baseUrl, "/v1/rates?destination=447700900123", { headers: bearer(keys.rates) });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      return (res.json as { sellRate: number }).sellRate;
    };
    expect(await Promise.all(servers.map(rate))).toEqual([0.05, 0.05]); // both have the card cached now

    const file = path.join(store.workDir, "deck.csv");
    fs.writeFileSync(file, "prefix,rate,increment\n44,0.07,60/60\n4420,0.012,60/60\n1,0.01,1/1\n33,0.0333,30/6\n");
    await runAdminCommand(db.db, ["rates", "import", "--group", groupId, "--file", file]);
    const importedAt = Date.now();

    // The invalidation is a NOTIFY sent at commit; each process's listener gets it asynchronously: polled until it
    // has (the deadline only guards against a lost notification).
    const seen: string[] = [];
    for (const server of servers) {
      let r = 0;
      let tries = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && r !== 0.07) {
        if (tries++ > 0) await sleep(50);
        r = await rate(server);
      }
      expect(r).toBe(0.07);
      seen.push(`${Date.now() - importedAt} ms (${tries} ${tries === 1 ? "request" : "requests"})`);
    }
    console.log(`new deck answered by the two processes ${seen.join(", ")} after the import returned`);

    // and each process rates a call started after the import with it: 61 s at 0.07/min, 60/60 -> 0.14
    const start = Date.now() + 1_000;
    for (const [i, server] of servers.entries()) {
      const res = await postCdrs(server.baseUrl, keys.rates, {
        uuid: `so-after-deck-${i}`,
        direction: "outbound",
        from: "15550000001",
        to: "447700900123",
        startTime: new Date(start).toISOString(),
        answerTime: new Date(start).toISOString(),
        endTime: new Date(start + 61_000).toISOString(),
        hangupCause: "NORMAL_CLEARING",
      });
      expect(res.status, res.text.slice(0, 300)).toBe(201);
      expect((res.json as { price: number }).price).toBe(0.14);
    }
    expect(ledgerDefects(await ledgerOf(db.db))).toEqual([]);
  });

  it(`the rate limit is shared through Redis: a burst of ${BURST} admits exactly ${BURST} requests across both processes`, async () => {
    // Alternately to each process (so both take half): per-process buckets would admit up to 2 x BURST.
    const burst = Array.from(
      { length: BURST + OVER },
      (_, i) => () => http(servers[i % 2].baseUrl, "/v1/balances", { headers: bearer(keys.limited) }),
    );
    const answers = await pool(burst, 16);
    const admitted = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(BURST);
    expect(refused).toHaveLength(OVER);
    for (const r of refused) expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    // and through the port, on whichever process: the bucket is empty for both
    for (let i = 0; i < 4; i++)
      expect((await http(proxy.baseUrl, "/v1/balances", { headers: bearer(keys.limited) })).status).toBe(429);
  });
});
