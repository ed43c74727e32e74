import { Prng } from "@/lib/random/prng";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import type { Engine } from "@/lib/testing/engines";
import {
  AppServer,
  Store,
  bearer,
  http,
  ledgerDefects,
  ledgerOf,
  postCdrs,
  sleep,
  testSeed,
  type HttpResult,
} from "./harness";
import { DESTINATIONS, SELL_CARD, makeCdr, rateRows } from "./seed";

/**
 * A bounded soak on loopback: several connections mixing call listings (with paging), rate
 * lookups, balances, single calls and ingest for SOAK_SECONDS and at least MIN_REQUESTS requests (a loaded machine
 * takes longer, it is not cut short). Zero 5xx, the server's resident memory does not grow by more than
 * RSS_GROWTH_BOUND_MIB between its floor after warm-up (the second quarter of the requests) and its floor in the last
 * quarter, and the ledger
 * invariant holds afterwards. The rate limiter is off (RATE_LIMIT_RPS=0):
 * this measures the service, not the limiter.
 */

const ENGINE = (process.env.SOAK_ENGINE || "postgres") as Engine;
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS || 110);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS || 6);
const RSS_GROWTH_BOUND_MIB = 128;
/** At least this many requests, however long a loaded machine takes: the soak is work, not only time. */
const MIN_REQUESTS = SOAK_SECONDS * 5;
const WARMUP_FRACTION = 0.25;

let store: Store;
let server: AppServer;
let ids: { groups: string[]; platformKey: string; groupKey: string; ingestKey: string; callIds: string[] };

beforeAll(async () => {
  store = await Store.create(ENGINE, "soak");
  ids = await store.withDb(async (db) => {
    const groups: string[] = [];
    for (const name of ["Soak A", "Soak B"]) {
      const g = await createBillingGroup(db, { name, currency: "USD", openingBalanceMicros: 100_000_000_000n });
      await importSellRates(db, g.id, rateRows(SELL_CARD));
      groups.push(g.id);
    }
    const seeded = Array.from({ length: 3000 }, (_, i) =>
      nativeCdrSchema.parse(makeCdr("soak-seed", i, groups[i % 2], null)),
    );
    const outcomes = [];
    for (let i = 0; i < seeded.length; i += 1000) outcomes.push(...(await ingestCdrs(db, seeded.slice(i, i + 1000))));
    return {
      groups,
      platformKey: (await createApiKey(db, { scopes: ["calls:read"], name: "soak platform" })).key,
      groupKey: (await createApiKey(db, { scopes: ["calls:read"], billingGroupId: groups[0], name: "soak group" })).key,
      ingestKey: (await createApiKey(db, { scopes: ["cdrs:write"], name: "soak ingest" })).key,
      callIds: outcomes.slice(0, 200).map((o) => String(o.call.id)),
    };
  });
  server = await AppServer.start(store, { env: { RATE_LIMIT_RPS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await store?.dispose();
});

describe(`soak on ${ENGINE}`, () => {
  it(`serves mixed traffic from ${CONNECTIONS} connections for ${SOAK_SECONDS}s: zero 5xx, bounded memory, sound ledger`, async () => {
    const rng = new Prng(testSeed());
    const pick = <T>(xs: readonly T[]) => rng.pick(xs);
    const counts = new Map<string, number>();
    const serverErrors: string[] = [];
    const latencies: number[] = [];
    let ingested = 0;
    let batchNo = 0;
    const sentBatches: unknown[] = [];

    const record = (kind: string, res: HttpResult, started: number) => {
      latencies.push(performance.now() - started);
      const key = `${kind} ${res.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (res.status >= 500 && serverErrors.length < 20)
        serverErrors.push(`${kind}: ${res.status} ${res.text.slice(0, 300)}`);
    };

    const actions: [number, () => Promise<void>][] = [
      [
        35,
        async () => {
          const q = new URLSearchParams({ pageSize: String(pick([10, 50, 200])) });
          if (rng.next() < 0.3) q.set("direction", pick(["inbound", "outbound"]));
          if (rng.next() < 0.3) q.set("to", pick(["44", "4420", "1415", "33"]));
          if (rng.next() < 0.2) q.set("startTime[gte]", "2026-02-10T00:00:00Z");
          const t = performance.now();
          const key = pick([ids.platformKey, ids.groupKey]);
          const res = await http(server.baseUrl, `/v1/calls?${q}`, { headers: bearer(key) });
          record("list", res, t);
          const next = (res.json as { nextPageUrl?: string | null } | undefined)?.nextPageUrl;
          if (next && rng.next() < 0.5) {
            const t2 = performance.now();
            record("list-next", await http(server.baseUrl, next, { headers: bearer(key) }), t2);
          }
        },
      ],
      [
        25,
        async () => {
          const destination = pick([
            ...DESTINATIONS,
            `44${Math.floor(rng.next() * 1e9)}`,
            "999",
            `+1${Math.floor(rng.next() * 1e9)}`,
          ]);
          const t = performance.now();
          record(
            "rate",
            await http(server.baseUrl, `/v1/rates?destination=${encodeURIComponent(destination)}`, {
              headers: bearer(ids.groupKey),
            }),
            t,
          );
        },
      ],
      [
        10,
        async () => {
          const t = performance.now();
          record(
            "balance",
            await http(server.baseUrl, pick(["/v1/balances", "/v1/accounts"]), { headers: bearer(ids.groupKey) }),
            t,
          );
        },
      ],
      [
        5,
        async () => {
          const t = performance.now();
          record(
            "call",
            await http(server.baseUrl, `/v1/calls/${pick(ids.callIds)}`, { headers: bearer(ids.platformKey) }),
            t,
          );
        },
      ],
      [
        25,
        async () => {
          let body: unknown;
          if (sentBatches.length > 0 && rng.next() < 0.1) {
            body = pick(sentBatches); // a switch retrying: answered 200, debits nothing
          } else {
            const b = batchNo++;
            const cdrs = Array.from({ length: 1 + Math.floor(rng.next() * 20) }, (_, i) =>
              makeCdr(`soak-${b}`, i, ids.groups[(b + i) % 2], null),
            );
            body = { cdrs };
            sentBatches.push(body);
            ingested += cdrs.length;
          }
          const t = performance.now();
          record("ingest", await postCdrs(server.baseUrl, ids.ingestKey, body), t);
        },
      ],
    ];
    const totalWeight = actions.reduce((n, [w]) => n + w, 0);
    const runAction = () => {
      let r = rng.next() * totalWeight;
      for (const [w, act] of actions) {
        if ((r -= w) < 0) return act();
      }
      return actions[0][1]();
    };

    const started = Date.now();
    const deadline = started + SOAK_SECONDS * 1000;
    const going = () => Date.now() < deadline || latencies.length < MIN_REQUESTS;
    // RSS with the requests done so far: warm-up is a share of the work, not of the time (a loaded machine warms slower).
    const samples: { requests: number; rss: number }[] = [];
    const sampler = (async () => {
      while (going()) {
        samples.push({ requests: latencies.length, rss: server.rssBytes() });
        await sleep(2_000);
      }
    })();
    const worker = async () => {
      while (going()) await runAction();
    };
    await Promise.all([...Array.from({ length: CONNECTIONS }, worker), sampler]);
    samples.push({ requests: latencies.length, rss: server.rssBytes() });
    const seconds = Math.round((Date.now() - started) / 1000);

    const requests = latencies.length;
    latencies.sort((a, b) => a - b);
    const p = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
    const mib = (b: number) => Math.round(b / 1024 / 1024);
    // Minima, not medians: RSS saws with each garbage collection, and a leak raises the floor the saw returns to.
    const floorOf = (from: number, to: number) => {
      const window = samples
        .filter((s) => s.requests >= requests * from && s.requests <= requests * to)
        .map((s) => s.rss);
      return window.length ? Math.min(...window) : undefined;
    };
    const warmRss =
      floorOf(WARMUP_FRACTION, WARMUP_FRACTION + 0.25) ?? Math.min(...samples.slice(0, 3).map((s) => s.rss));
    const endRss = floorOf(0.75, 1) ?? Math.min(...samples.slice(-3).map((s) => s.rss));
    const summary = [...counts.entries()]
      .sort()
      .map(([k, n]) => `${k}:${n}`)
      .join(" ");
    console.log(
      `[soak ${ENGINE}] ${requests} requests in ${seconds}s from ${CONNECTIONS} connections (${Math.round(requests / seconds)}/s; ` +
        `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms); ${ingested} CDRs ingested; ${summary}; RSS start ${mib(samples[0].rss)} MiB, ` +
        `floor after warm-up ${mib(warmRss)} MiB, floor at the end ${mib(endRss)} MiB, max ${mib(Math.max(...samples.map((s) => s.rss)))} MiB`,
    );

    expect(serverErrors).toEqual([]);
    expect(samples.every((s) => s.rss > 0)).toBe(true);
    expect(mib(endRss - warmRss), `RSS grew from ${mib(warmRss)} to ${mib(endRss)} MiB`).toBeLessThanOrEqual(
      RSS_GROWTH_BOUND_MIB,
    );
    expect([...counts.keys()].filter((k) => !/ (200|201|404)$/.test(k))).toEqual([]);

    await server.stop(); // PGlite: the test may open the directory only once the server let go
    expect(ledgerDefects(await store.withDb(ledgerOf))).toEqual([]);
  });
});
