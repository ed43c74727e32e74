import { Prng } from "@/lib/random/prng";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { topUp } from "@/lib/billing/testing/top-up";
import { queryRows } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { createSupplier } from "@/lib/rating/suppliers";
import { ENGINES } from "@/lib/testing/engines";
import { sql } from "drizzle-orm";
import {
  AppServer,
  Store,
  bearer,
  http,
  ledgerDefects,
  ledgerOf,
  postCdrs,
  processState,
  sleep,
  testSeed,
  type HttpResult,
} from "./harness";
import { BUY_CARD, SELL_CARD, makeCdr, rateRows } from "./seed";

/**
 * kill -9 during ingest: the production server on each engine takes a bounded stream of CDR
 * batches from several concurrent senders; its process group is SIGKILLed at a random moment and a
 * new server is started at once on the same data, while the dead one is still a zombie (its parent
 * does not reap it) and its lock file still names it. KILLS times in a row (10 on the embedded
 * engine, whose lock is what a restart meets). After every restart the server answers /v1 (not
 * 500), each batch is stored whole or not at all, and every batch the server acknowledged is there.
 * Finally every batch is replayed: each call is stored and charged exactly once and each group's
 * balance equals its ledger. On PGlite also: a second server on a held directory exits 1 saying
 * why, and the data directory is owner-only (a 0755/0666 tree left by an older version is fixed).
 */

const CALLS = Number(process.env.CRASH_CALLS || 700);
const KILLS: Record<string, number> = process.env.CRASH_KILLS
  ? { pglite: Number(process.env.CRASH_KILLS), postgres: Number(process.env.CRASH_KILLS) }
  : { pglite: 10, postgres: 2 };
const SENDERS = 3;

interface Batch {
  index: number;
  uuids: string[];
  body: unknown;
  /** Last answer: an HTTP status, or "lost" (connection cut by the kill). */
  outcome?: number | "lost";
  acknowledged?: boolean;
}

function buildBatches(rng: Prng, groupIds: string[], supplierId: string): Batch[] {
  const cdrs = Array.from({ length: CALLS }, (_, i) => makeCdr("crash", i, groupIds[i % groupIds.length], supplierId));
  const batches: Batch[] = [];
  for (let i = 0; i < cdrs.length;) {
    const size = rng.next() < 0.2 ? 1 : 1 + Math.floor(rng.next() * 40);
    const chunk = cdrs.slice(i, i + size);
    i += size;
    batches.push({
      index: batches.length,
      uuids: chunk.map((c) => c.uuid),
      body: chunk.length === 1 && rng.next() < 0.5 ? chunk[0] : { cdrs: chunk },
    });
  }
  return batches;
}

/** Every stored uuid, through the API (PGlite admits only the server to its directory). */
async function storedViaApi(server: AppServer, key: string): Promise<Set<string>> {
  const out = new Set<string>();
  let next: string | null = "/v1/calls?pageSize=1000";
  while (next) {
    const page: HttpResult = await http(server.baseUrl, next, { headers: bearer(key) });
    expect(page.status, page.text).toBe(200);
    const body = page.json as { calls: { uuid: string }[]; nextPageUrl: string | null };
    for (const c of body.calls) out.add(c.uuid);
    next = body.nextPageUrl;
  }
  return out;
}

/** Entries under dir (itself included) with group or other permission bits. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return; // removed by the server while we walked
    }
    if ((st.mode & 0o077) !== 0) out.push(`${path.relative(dir, p) || "."} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return out;
}

/** What an older version left: directories 0755, files 0666. */
function loosen(p: string): void {
  const st = fs.lstatSync(p);
  fs.chmodSync(p, st.isDirectory() ? 0o755 : 0o666);
  if (st.isDirectory()) for (const name of fs.readdirSync(p)) loosen(path.join(p, name));
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  cleanup = [];
});

describe.each(ENGINES)("kill -9 during ingest on %s", (engine) => {
  it(`stores and charges each of ${CALLS} calls exactly once across ${KILLS[engine]} kills with immediate restarts and a full replay`, async () => {
    const kills = KILLS[engine];
    const seed = testSeed();
    const rng = new Prng(seed);
    const store = await Store.create(engine, "crash");
    cleanup.push(() => store.dispose());
    const setup = await store.withDb(async (db) => {
      const groups = [];
      for (const [i, name] of ["Crash A", "Crash B", "Crash C"].entries()) {
        const g = await createBillingGroup(db, {
          name,
          currency: "USD",
          openingBalanceMicros: BigInt(1000 + i) * 1_000_000n,
        });
        await importSellRates(
          db,
          g.id,
          rateRows(i === 2 ? { "44": ["0.07", "1/1"], "1": ["0.015", "6/6"] } : SELL_CARD),
        );
        groups.push(g.id);
      }
      await topUp(db, groups[1], 25_500_000n);
      const supplier = await createSupplier(db, { name: "Crash carrier" });
      await importBuyRates(db, supplier.id, rateRows(BUY_CARD));
      const ingest = await createApiKey(db, { scopes: ["cdrs:write"], name: "crash ingest" });
      const reader = await createApiKey(db, { scopes: ["calls:read"], name: "crash reader" });
      return { groups, supplierId: supplier.id, ingestKey: ingest.key, readKey: reader.key };
    });
    const batches = buildBatches(rng, setup.groups, setup.supplierId);
    const log: string[] = [`seed ${seed}, ${batches.length} batches`];
    const tally = { requests: 0, kills: 0, lostInFlight: 0, restarts: 0 };

    if (engine === "pglite") {
      loosen(store.dataDir);
      expect(openToOthers(store.dataDir).length).toBeGreaterThan(100);
    }
    let server = await AppServer.start(store, { unreaped: true });
    cleanup.push(() => server.stop());
    if (engine === "pglite") {
      expect(openToOthers(store.dataDir), "the server tightens an existing data directory at start").toEqual([]);
      expect(server.log()).toContain("data directory permissions tightened");
    }
    let cursor = 0; // next batch not yet sent in a kill phase
    for (let kill = 0; kill < kills; kill++) {
      const remaining = batches.length - cursor;
      // Spread over the kills still to come, so that each one lands while batches are being sent.
      const killAfterAcks = 1 + Math.floor(rng.next() * Math.max(1, (remaining / (kills - kill)) * 0.7));
      const killDelayMs = Math.floor(rng.next() * 40);
      let acks = 0;
      let inFlight = 0;
      let inFlightAtKill = 0;
      let killing: Promise<void> | null = null;
      const current = server;
      const sender = async () => {
        while (cursor < batches.length && !killing) {
          const batch = batches[cursor++];
          tally.requests++;
          let res: HttpResult;
          inFlight++;
          try {
            res = await postCdrs(current.baseUrl, setup.ingestKey, batch.body);
          } catch (e) {
            if (current.running && !killing) throw e;
            batch.outcome = "lost";
            tally.lostInFlight++;
            continue;
          } finally {
            inFlight--;
          }
          batch.outcome = res.status;
          expect([200, 201], `batch ${batch.index}: ${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
          batch.acknowledged = true;
          if (++acks === killAfterAcks) {
            killing = sleep(killDelayMs).then(() => {
              inFlightAtKill = inFlight;
              return current.kill9();
            });
          }
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, sender));
      if (!killing) killing = current.kill9(); // the stream ended before the chosen moment
      await killing;
      tally.kills++;
      log.push(
        `kill ${kill + 1}: after ${acks} acknowledged batches (+${killDelayMs} ms) with ${inFlightAtKill} in flight, ${cursor}/${batches.length} batches sent`,
      );
      console.log(`[crash ${engine}] ${log.at(-1)}`); // progress, for a run that times out
      if (engine === "pglite") {
        // The dead server's lock file is still there, naming a pid that is not reaped yet
        // (kill(pid, 0) still succeeds on it): it must not block the restart.
        const lock = JSON.parse(fs.readFileSync(path.join(store.dataDir, "pglite.lock"), "utf8")) as { pid: number };
        expect(lock.pid).toBe(current.pid);
        expect(processState(current.pid)).toBe("Z");
      }

      // At once: the new server may meet the old one's sockets still being torn down.
      server = await AppServer.start(store, { unreaped: true });
      await current.reap();
      tally.restarts++;
      const stored = await storedViaApi(server, setup.readKey);
      for (const batch of batches.slice(0, cursor)) {
        const present = batch.uuids.filter((u) => stored.has(u)).length;
        expect(
          [0, batch.uuids.length],
          `batch ${batch.index} (${batch.outcome}) is partly stored: ${present}/${batch.uuids.length}`,
        ).toContain(present);
        if (batch.acknowledged)
          expect(present, `acknowledged batch ${batch.index} lost after kill -9`).toBe(batch.uuids.length);
      }
    }

    if (engine === "pglite") {
      // A second server on a directory in use stops at once with the reason (not 500s forever).
      const second = await AppServer.start(store).then(
        (s) => s.stop().then(() => "started"),
        (e: Error) => e.message,
      );
      expect(second).toMatch(new RegExp(`\\(exit 1\\)[\\s\\S]*in use by server process ${server.pid}`));
      log.push("a second server on the held directory exited 1");
    }

    // Replay everything, as a switch would after an outage: nothing twice, nothing missing.
    let replayCreated = 0;
    let replayDuplicate = 0;
    let next = 0;
    const replay = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        tally.requests++;
        const res = await postCdrs(server.baseUrl, setup.ingestKey, batch.body);
        expect([200, 201], `replay of batch ${batch.index}: ${res.status} ${res.text.slice(0, 300)}`).toContain(
          res.status,
        );
        const results =
          "cdrs" in (batch.body as object)
            ? (res.json as { results: { status: string }[] }).results.map((r) => r.status)
            : [res.status === 201 ? "created" : "duplicate"];
        replayCreated += results.filter((s) => s === "created").length;
        replayDuplicate += results.filter((s) => s === "duplicate").length;
        if (batch.acknowledged)
          expect(
            results.every((s) => s === "duplicate"),
            `acknowledged batch ${batch.index} was created again`,
          ).toBe(true);
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, replay));
    const finalStored = await storedViaApi(server, setup.readKey);
    expect(finalStored.size).toBe(CALLS);
    await server.stop();
    if (engine === "pglite") expect(openToOthers(store.dataDir), "files the server created as it ran").toEqual([]);

    const { ledger, perUuid } = await store.withDb(async (db) => ({
      ledger: await ledgerOf(db),
      perUuid: await queryRows<{ n: bigint }>(
        db,
        sql`SELECT count(*)::bigint AS n FROM calls GROUP BY uuid HAVING count(*) > 1`,
      ),
    }));
    expect(perUuid).toEqual([]);
    expect(ledgerDefects(ledger)).toEqual([]);
    expect(ledger.reduce((n, g) => n + g.ratedCalls, 0)).toBeGreaterThan(CALLS / 2);
    log.push(
      `${tally.requests} POSTs, ${tally.kills} kills, ${tally.restarts} restarts, ${tally.lostInFlight} requests cut in flight; ` +
        `replay: ${replayCreated} created, ${replayDuplicate} duplicates; ledger sound for ${ledger.length} groups`,
    );
    console.log(`[crash ${engine}] ${log.join("; ")}`);
    // ~1 min on an idle machine; generous for a loaded one (each restart is a server start).
  }, 600_000);
});
