import { Prng } from "@/lib/random/prng";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { importSellRates } from "@/lib/rating/import-rates";
import { adminPostgresUrl } from "@/lib/testing/engines";
import {
  AppServer,
  Store,
  TcpProxy,
  bearer,
  http,
  ledgerDefects,
  ledgerOf,
  postCdrs,
  problemDefect,
  sleep,
  storedUuids,
  testSeed,
  type HttpResult,
} from "./harness";
import { SELL_CARD, makeCdr, rateRows } from "./seed";

/**
 * The app's PostgreSQL connections are cut under it: by pg_terminate_backend during ingest, and by
 * a TCP proxy (ours, in front of the real server) refusing every connection for a while. The API
 * answers 503 problem+json while the database is gone, never half-applies a batch, and serves
 * again by itself, the same process, once the database is back.
 */

let store: Store;
let server: AppServer;
let proxy: TcpProxy;
let admin: pg.Client;
let ids: { groups: string[]; ingestKey: string; readKey: string };
const databaseName = () => new URL(store.databaseUrl!).pathname.slice(1);

beforeAll(async () => {
  store = await Store.create("postgres", "connloss");
  ids = await store.withDb(async (db) => {
    const groups: string[] = [];
    for (const name of ["Loss A", "Loss B"]) {
      const g = await createBillingGroup(db, { name, currency: "USD", openingBalanceMicros: 5_000_000_000n });
      await importSellRates(db, g.id, rateRows(SELL_CARD));
      groups.push(g.id);
    }
    const ingest = await createApiKey(db, { scopes: ["cdrs:write"], name: "loss ingest" });
    const reader = await createApiKey(db, { scopes: ["calls:read"], name: "loss reader" });
    return { groups, ingestKey: ingest.key, readKey: reader.key };
  });
  const target = new URL(adminPostgresUrl());
  proxy = await TcpProxy.create({ host: target.hostname, port: Number(target.port || 5432) });
  server = await AppServer.start(store, {
    databaseUrl: proxy.urlFor(store.databaseUrl!),
    env: { RATE_LIMIT_RPS: "0", PG_POOL_MAX: "3" },
  });
  admin = new pg.Client({ connectionString: store.databaseUrl });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end().catch(() => undefined);
  await server?.stop();
  await proxy?.stop();
  await store?.dispose();
});

function expectUnavailable(res: HttpResult, what: string): void {
  expect(res.status, `${what}: ${res.status} ${res.text.slice(0, 300)}`).toBe(503);
  expect(problemDefect(res), what).toBeNull();
  expect((res.json as { code: string }).code).toBe("unavailable");
  expect(Number(res.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1);
}

/** Polls (for at most 30 s) until the API serves again; returns how many 503s it took. */
async function waitUntilServing(app: AppServer = server): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const res = await http(app.baseUrl, "/v1/accounts", { headers: bearer(ids.readKey), timeoutMs: 15_000 });
    if (res.status === 200) return attempt;
    expectUnavailable(res, "while recovering");
    await sleep(250);
  }
  throw new Error(
    "the API did not recover within 30 s of the database being reachable (connections leaked from the pool?)",
  );
}

describe("PostgreSQL connection loss", () => {
  it("pg_terminate_backend during ingest: 2xx or 503 problem+json, never a partial batch, recovery without restart", async () => {
    const rng = new Prng(testSeed());
    const batches = Array.from({ length: 90 }, (_, b) => {
      const size = 1 + Math.floor(rng.next() * 30);
      const cdrs = Array.from({ length: size }, (_, i) => makeCdr(`loss-${b}`, i, ids.groups[(b + i) % 2], null));
      return { uuids: cdrs.map((c) => c.uuid), body: { cdrs }, acknowledged: false, status: 0 as number };
    });
    const tally = { terminated: 0, rounds: 0, ok: 0, unavailable: 0 };
    let next = 0;
    let sending = true;
    const killer = (async () => {
      while (sending) {
        await sleep(30 + Math.floor(rng.next() * 100));
        const r = await admin.query(
          "SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()) t",
          [databaseName()],
        );
        tally.terminated += r.rows[0].n as number;
        tally.rounds++;
      }
    })();
    const sender = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        // Bounded: a request that hangs because its connection died is a defect, not a slow answer.
        const res = await postCdrs(server.baseUrl, ids.ingestKey, batch.body, 30_000).catch((e: Error) => {
          throw new Error(`ingest request hung or failed while connections were terminated: ${e.message}`);
        });
        batch.status = res.status;
        if (res.status === 503) {
          expectUnavailable(res, "ingest during terminations");
          tally.unavailable++;
        } else {
          expect([200, 201], `${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
          batch.acknowledged = true;
          tally.ok++;
        }
      }
    };
    try {
      await Promise.all([sender(), sender(), sender(), sender()]);
    } finally {
      sending = false;
      await killer;
    }
    expect(server.running).toBe(true);
    expect(tally.terminated).toBeGreaterThan(0);
    // A dropped connection is an error of one request, never of the process.
    expect(server.log()).not.toMatch(/uncaughtException|unhandledRejection/);

    const stored = await store.withDb((db) =>
      storedUuids(
        db,
        batches.flatMap((b) => b.uuids),
      ),
    );
    for (const [i, batch] of batches.entries()) {
      const present = batch.uuids.filter((u) => stored.has(u)).length;
      expect(
        [0, batch.uuids.length],
        `batch ${i} (${batch.status}) partly stored: ${present}/${batch.uuids.length}`,
      ).toContain(present);
      if (batch.acknowledged) expect(present).toBe(batch.uuids.length);
    }

    const recoveryAttempts = await waitUntilServing();
    // Replay what was refused: now every call is stored, each charged once.
    for (const batch of batches.filter((b) => !b.acknowledged)) {
      const res = await postCdrs(server.baseUrl, ids.ingestKey, batch.body);
      expect([200, 201]).toContain(res.status);
    }
    const all = await store.withDb((db) =>
      storedUuids(
        db,
        batches.flatMap((b) => b.uuids),
      ),
    );
    expect(all.size).toBe(batches.reduce((n, b) => n + b.uuids.length, 0));
    expect(ledgerDefects(await store.withDb(ledgerOf))).toEqual([]);
    console.log(
      `[connection-loss] ${batches.length} batches (${all.size} calls) by 4 senders; ${tally.rounds} termination rounds ended ${tally.terminated} backends; ` +
        `${tally.ok} acknowledged, ${tally.unavailable} answered 503; recovered after ${recoveryAttempts} 503s; ledger sound; same server pid ${server.pid}`,
    );
  });

  it("answers 503 while PostgreSQL is unreachable and serves again when it is back, without a restart", async () => {
    const pid = server.pid;
    expect((await http(server.baseUrl, "/v1/accounts", { headers: bearer(ids.readKey) })).status).toBe(200);
    await proxy.stop();
    const outage = makeCdr("outage", 1, ids.groups[0], null);
    const attempts: HttpResult[] = [];
    for (let i = 0; i < 4; i++) {
      attempts.push(await http(server.baseUrl, "/v1/calls", { headers: bearer(ids.readKey) }));
      attempts.push(await postCdrs(server.baseUrl, ids.ingestKey, outage));
    }
    for (const res of attempts) expectUnavailable(res, "database down");

    await proxy.start();
    const refusedBeforeRecovery = await waitUntilServing();
    expect(server.running).toBe(true);
    expect(server.pid).toBe(pid);
    const created = await postCdrs(server.baseUrl, ids.ingestKey, outage);
    expect(created.status, created.text).toBe(201);
    expect(ledgerDefects(await store.withDb(ledgerOf))).toEqual([]);
    console.log(
      `[connection-loss] outage: ${attempts.length} requests answered 503; served again after ${refusedBeforeRecovery} more 503s once the database was back`,
    );
  });

  it("starts while PostgreSQL is unreachable: stays up answering 503, serves once it is reachable", async () => {
    await proxy.stop();
    let down = true;
    const late = await AppServer.start(store, {
      databaseUrl: proxy.urlFor(store.databaseUrl!),
      env: { RATE_LIMIT_RPS: "0", PG_POOL_MAX: "3" },
    });
    try {
      for (let i = 0; i < 3; i++)
        expectUnavailable(
          await http(late.baseUrl, "/v1/accounts", { headers: bearer(ids.readKey) }),
          "database down at start",
        );
      expect(late.running).toBe(true);
      await proxy.start();
      down = false;
      await waitUntilServing(late);
      expect(late.running).toBe(true);
      expect(late.log()).toContain("database unreachable at start");
    } finally {
      if (down) await proxy.start();
      await late.kill9();
      await late.reap();
    }
  });
});
