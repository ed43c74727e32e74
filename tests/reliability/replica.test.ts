import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { sql } from "drizzle-orm";
import { AppServer, Store, bearer, http, postCdrs, sleep, type HttpResult } from "./harness";
import { Replica } from "./replica-server";
import { makeCdr, rateRows, SELL_CARD } from "./seed";

/**
 * Listing reads on a real streaming replica (README "Scale-out"): the local PostgreSQL copied with pg_basebackup -R and
 * started on another port. Three `next start` processes with DATABASE_REPLICA_URL and REDIS_URL: A and B with a
 * generous lag bound (2 min), C with 1.5 s.
 * - Served by the replica: with replay paused on the replica, a call written on the primary by another path (the
 *   domain function, as `cdrs import` does) is missing from GET /v1/calls, its CSV export and GET /v1/usage, although
 *   the primary has it; the replica's pg_stat_activity shows each server's read pool by application_name.
 * - Read-your-writes: the group's own POST /v1/cdrs is seen at once by its listing through the process that took it,
 *   through the other process (the WAL position is shared in Redis) and in the portal (session cookie); other
 *   groups keep reading the (paused) replica.
 * - Beyond the lag bound (C), and with the replica stopped (all), reads are answered by the primary: every answer 200.
 */

const MINUTE = 60_000;

describe("listing reads on a streaming replica", () => {
  let store: Store;
  let replica: Replica;
  let primary: DbHandle;
  const servers: Record<"A" | "B" | "C", AppServer> = {} as never;
  let g1 = "";
  let g2 = "";
  let k1 = "";
  let k2 = "";
  let n = 0;

  const cdr = (groupId: string) => makeCdr(`rep-${groupId.slice(-6)}`, ++n, groupId, null);

  beforeAll(async () => {
    store = await Store.create("postgres", "replica");
    primary = await store.open();
    const db = primary.db;
    for (const name of ["One", "Two"]) {
      const group = await createBillingGroup(db, { name, currency: "USD", openingBalanceMicros: 100_000_000n });
      await importSellRates(db, group.id, rateRows(SELL_CARD));
      const key = (await createApiKey(db, { scopes: ["cdrs:write", "calls:read"], billingGroupId: group.id })).key;
      if (name === "One") [g1, k1] = [group.id, key];
      else [g2, k2] = [group.id, key];
    }
    replica = await Replica.start();
    await replica.catchUp();
    const database = new URL(store.databaseUrl!).pathname.slice(1);
    const env = (name: string, maxLagMs: number) => ({
      RATE_LIMIT_RPS: "0",
      REDIS_URL: "redis://127.0.0.1:6379",
      SESSION_SECRET: "s".repeat(64),
      CURSOR_SECRET: "c".repeat(64),
      DATABASE_REPLICA_URL: replica.url(database, `cb-read-${name}`),
      DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs),
    });
    const [a, b, c] = await Promise.all([
      AppServer.start(store, { env: env("A", 2 * MINUTE) }),
      AppServer.start(store, { env: env("B", 2 * MINUTE) }),
      AppServer.start(store, { env: env("C", 1_500) }),
    ]);
    Object.assign(servers, { A: a, B: b, C: c });
  }, 8 * MINUTE);

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop().catch(() => undefined)));
    await replica?.dispose();
    await primary?.close();
    await store?.dispose();
  }, 2 * MINUTE);

  const uuidsOf = (res: HttpResult): string[] => {
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return (res.json as { calls: { uuid: string }[] }).calls.map((c) => c.uuid);
  };
  const list = (server: AppServer, headers: Record<string, string>) =>
    http(server.baseUrl, "/v1/calls?pageSize=1000", { headers });
  const usageCalls = async (server: AppServer, key: string): Promise<number> => {
    const res = await http(server.baseUrl, "/v1/usage?groupBy=direction", { headers: bearer(key) });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return (res.json as { rows: { calls: number }[] }).rows.reduce((sum, r) => sum + r.calls, 0);
  };
  const exported = async (server: AppServer, key: string): Promise<string> => {
    const res = await http(server.baseUrl, "/v1/calls/export", { headers: bearer(key) });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return res.text;
  };
  const onPrimary = async (uuid: string) =>
    (await queryRows<{ n: bigint }>(primary.db, sql`SELECT count(*)::bigint AS n FROM calls WHERE uuid = ${uuid}`)).map(
      (r) => Number(r.n),
    )[0];

  async function signIn(server: AppServer, key: string): Promise<Record<string, string>> {
    const res = await http(server.baseUrl, "/session", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key, next: "/calls" }).toString(),
    });
    expect(res.status).toBe(303);
    return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] };
  }

  const direct: Record<string, string> = {};
  const own: Record<string, string> = {};

  it("reads are served by the replica: with replay paused, a call written on the primary by another path is not listed", async () => {
    const first = cdr(g1);
    expect((await postCdrs(servers.A.baseUrl, k1, first)).status).toBe(201);
    expect(uuidsOf(await list(servers.A, bearer(k1)))).toContain(first.uuid);
    const usageBefore = await usageCalls(servers.A, k2);
    // Each process has read once (a process relates the replica's position to the primary's by sampling both as it
    // reads: one that starts while the replica is paused cannot tell how stale it is, and reads the primary).
    for (const server of Object.values(servers)) uuidsOf(await list(server, bearer(k2)));

    await replica.catchUp();
    await replica.query("SELECT pg_wal_replay_pause()");
    for (let i = 0; i < 50; i++) {
      const [{ state }] = await replica.query<{ state: string }>("SELECT pg_get_wal_replay_pause_state() AS state");
      if (state === "paused") break;
      await sleep(100);
    }
    // Written on the primary without the API (so no read-your-writes mark): as `cdrs import` would.
    const d1 = cdr(g1);
    const d2 = cdr(g2);
    await ingestCdrs(primary.db, [nativeCdrSchema.parse(d1), nativeCdrSchema.parse(d2)]);
    [direct.g1, direct.g2] = [d1.uuid, d2.uuid];
    expect(await onPrimary(d2.uuid)).toBe(1);

    for (const server of [servers.A, servers.B]) {
      expect(uuidsOf(await list(server, bearer(k2)))).not.toContain(d2.uuid);
      expect(uuidsOf(await list(server, bearer(k1)))).not.toContain(d1.uuid);
      expect(await exported(server, k2)).not.toContain(d2.uuid);
      expect(await usageCalls(server, k2)).toBe(usageBefore);
    }
    // The replica is where those reads ran: each server's read pool is connected there, by its application_name.
    const names = (
      await replica.query<{ name: string }>("SELECT DISTINCT application_name AS name FROM pg_stat_activity")
    ).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["cb-read-A", "cb-read-B", "cb-read-C"]));
  });

  it("read-your-writes: the group's own ingest is listed at once, through either process and in the portal", async () => {
    const mine = cdr(g1);
    expect((await postCdrs(servers.A.baseUrl, k1, mine)).status).toBe(201);
    own.g1 = mine.uuid;
    const viaA = uuidsOf(await list(servers.A, bearer(k1)));
    expect(viaA).toContain(mine.uuid);
    expect(viaA).toContain(direct.g1); // read from the primary, which has everything
    expect(uuidsOf(await list(servers.B, bearer(k1)))).toContain(mine.uuid); // B learnt the position through Redis
    expect(await exported(servers.B, k1)).toContain(mine.uuid);
    const portal = await signIn(servers.B, k1);
    expect(uuidsOf(await list(servers.B, portal))).toContain(mine.uuid);

    // A batch through B, then the portal's call log on A
    const batch = [cdr(g1), cdr(g1)];
    expect((await postCdrs(servers.B.baseUrl, k1, { cdrs: batch })).status).toBe(201);
    const portalA = await signIn(servers.A, k1);
    expect(uuidsOf(await list(servers.A, portalA))).toEqual(expect.arrayContaining(batch.map((c) => c.uuid)));

    // The other group has written nothing since the pause: it still reads the paused replica.
    expect(uuidsOf(await list(servers.A, bearer(k2)))).not.toContain(direct.g2);
    expect(uuidsOf(await list(servers.B, await signIn(servers.B, k2)))).not.toContain(direct.g2);
  });

  it("a replica behind the lag bound is not used: the 1.5 s server answers from the primary", async () => {
    let seen = false;
    for (let i = 0; i < 40 && !seen; i++) {
      seen = uuidsOf(await list(servers.C, bearer(k2))).includes(direct.g2);
      if (!seen) await sleep(250);
    }
    expect(seen).toBe(true);
    // while the 2-minute servers still read the paused replica
    expect(uuidsOf(await list(servers.A, bearer(k2)))).not.toContain(direct.g2);
  });

  it("with the replica down, every listing read is answered by the primary", async () => {
    await replica.stop();
    for (const server of [servers.A, servers.B, servers.C]) {
      for (let i = 0; i < 3; i++) {
        expect(uuidsOf(await list(server, bearer(k2)))).toContain(direct.g2);
        expect(uuidsOf(await list(server, bearer(k1)))).toEqual(expect.arrayContaining([direct.g1, own.g1]));
        expect(await exported(server, k2)).toContain(direct.g2);
        expect(await usageCalls(server, k2)).toBeGreaterThan(0);
      }
    }
    const portal = await signIn(servers.A, k2);
    expect(uuidsOf(await list(servers.A, portal))).toContain(direct.g2);
    // and ingest goes on
    expect((await postCdrs(servers.B.baseUrl, k2, cdr(g2))).status).toBe(201);
  });
});
