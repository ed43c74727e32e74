// `npx tsx bench/authorize-limits.ts [--engine postgres|pglite] [--rate 50] [--seconds 5] [--window 60]
//    [--search 25,50,100,150,200,300,500,1000] [--ratio 3] [--ingest-batches 2] [--reuse-build]`
// Authorizations as a switch sends them (issue 31 item 5), on a fresh production server: POST /v1/authorizations at a
// sustained rate (open loop: each request leaves at its scheduled time, whatever the earlier ones are doing, and its
// latency counts from that time, so a stall shows as queueing, not as fewer samples), each phase on an account of its
// own: without limits, then each rule alone, set to bind for about half the phase's calls (so both its admitted and its
// refused path are timed: the counts are printed), then every rule on, none binding (each rule evaluated, none
// decides; velocity windows of --window seconds). The framework's floor (/internal/floor, a constant JSON answer in
// the same build) is paced the same way in the same run: each phase's p50/p99 is given as a ratio to the floor's and
// to "no limits". --search then paces the floor and "every rule" at rising rates (a fresh account each) up to the
// highest this machine offers with every rule's p99 within --ratio times the floor's at the same rate: the issue's
// 1 000/s where it cannot be offered. Last, batched ingest per rule: on an account per rule (none binding), calls
// authorized first, then their CDRs posted in batches of 1 000 one after the other (each CDR settles its
// authorization): calls/s, and the server's and the database's CPU per 1 000 calls. Prints one JSON object. Not a test.
import { parseArgs } from "node:util";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import type { Engine } from "@/lib/testing/engines";
import { freshAccount, postedCdr } from "./fresh-account";
import { databaseCpu, databaseCpuSpent } from "./database-cpu";
import { BenchServer, buildProduction } from "./server";
import { percentile, round } from "./stats";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "postgres" },
    rate: { type: "string", default: "50" },
    seconds: { type: "string", default: "5" },
    /** The velocity rules' sliding window. */
    window: { type: "string", default: "60" },
    /** Rates for the search of the highest sustained one; empty: no search. */
    search: { type: "string", default: "25,50,100,150,200,300,500,1000" },
    /** "Within the floor": every rule's p99 at most this times the floor's p99 at the same rate. */
    ratio: { type: "string", default: "3" },
    "ingest-batches": { type: "string", default: "2" },
    "reuse-build": { type: "boolean", default: false },
  },
});
const engine = values.engine as Engine;
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const windowSeconds = Number(values.window);
const searchRates = values.search!.split(",").filter(Boolean).map(Number);
const withinRatio = Number(values.ratio);
const ingestBatches = Number(values["ingest-batches"]);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** What one call reserves: 601 s (the grant of 600 and its last second) at 0.01 per minute by whole minutes. */
const RESERVED_PER_CALL = 0.11;
const count = rate * seconds;
const half = Math.max(1, Math.floor(count / 2));
const money = (units: number) => units.toFixed(2);

/** Each rule alone, binding for about half of a phase's calls (destinations: the share of 4490/4470 numbers). */
const RULE_ALONE: Record<string, object> = {
  concurrentCalls: { maxConcurrentCalls: half },
  callsPerSecond: { callsPerSecond: Math.max(1, Math.floor(rate / 2)) },
  dailySpend: { dailySpend: money(half * RESERVED_PER_CALL) },
  monthlySpend: { monthlySpend: money(half * RESERVED_PER_CALL) },
  prefixes: { blockedPrefixes: ["4490", "4470"], allowedPrefixes: ["44"] },
  distinctDestinations: { distinctDestinations: { max: half, windowSeconds } },
  callsPerPrefix: { callsPerPrefix: { max: half, windowSeconds } },
};
/** Each rule on, none binding at these rates: the work of each rule is done, and every call is admitted. */
const NON_BINDING: Record<string, object> = {
  concurrentCalls: { maxConcurrentCalls: 1_000_000 },
  callsPerSecond: { callsPerSecond: 100_000 },
  dailySpend: { dailySpend: "1000000000.00" },
  monthlySpend: { monthlySpend: "1000000000.00" },
  prefixes: { blockedPrefixes: ["44909999", "44709999"], allowedPrefixes: ["44"] },
  distinctDestinations: { distinctDestinations: { max: 1_000_000, windowSeconds } },
  callsPerPrefix: { callsPerPrefix: { max: 1_000_000, windowSeconds } },
};
const EVERY_RULE = Object.assign({}, ...Object.values(NON_BINDING)) as object;
const RULES = Object.keys(RULE_ALONE);

interface Paced {
  sent: number;
  admitted: number;
  refused: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  achievedPerSecond: number;
}
type Outcome = "admitted" | "refused" | "failed";

/** `n` requests at `perSecond`, each timed from its scheduled start; `send(i)` answers how it went. */
async function paced(n: number, perSecond: number, send: (i: number) => Promise<Outcome>): Promise<Paced> {
  const latencies: number[] = [];
  const counts = { admitted: 0, refused: 0, failed: 0 };
  const t0 = performance.now();
  const all: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    all.push(
      send(i).then((o) => {
        latencies.push(performance.now() - due);
        counts[o]++;
      }),
    );
  }
  await Promise.all(all);
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    sent: n,
    ...counts,
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    achievedPerSecond: Math.round(n / elapsed),
  };
}

const REFUSALS = new Set([
  "concurrent_calls_limit",
  "calls_per_second_limit",
  "daily_spend_limit",
  "monthly_spend_limit",
  "destination_blocked",
  "destination_not_allowed",
  "velocity_limit",
]);

/** One account per phase, all created before the server starts (on PGlite it then holds the data directory). */
async function createAccounts(databaseUrl: string | undefined, dataDir: string, names: string[]) {
  const handle = await openDatabase(databaseUrl ? { url: databaseUrl } : { dir: dataDir, role: "cli" });
  try {
    const keys = new Map<string, string>();
    for (const name of names) {
      const group = await createBillingGroup(handle.db, { name, currency: "EUR", openingBalanceMicros: 10n ** 15n });
      await importSellRates(handle.db, group.id, [
        { prefix: "44", rate: "0.01", increment: { min: 60, interval: 60 } },
      ]);
      const { key } = await createApiKey(handle.db, {
        scopes: ["cdrs:write", "calls:read", "limits:write"],
        billingGroupId: group.id,
      });
      keys.set(name, key);
    }
    return keys;
  } finally {
    await handle.close();
  }
}

async function main() {
  buildProduction(log, values["reuse-build"]!);
  const account = await freshAccount(engine, "authorize");
  let server: BenchServer | undefined;
  try {
    const phaseNames = ["noLimits", ...RULES, "everyRule"];
    const searchNames = searchRates.map((r) => `search${r}`);
    const ingestNames = ["ingestNone", ...RULES.map((r) => `ingest-${r}`), "ingestEveryRule", "ingestNoneAgain"];
    const keys = await createAccounts(account.databaseUrl, account.dataDir, [
      ...phaseNames,
      ...searchNames,
      ...ingestNames,
    ]);
    server = await BenchServer.start({
      dataDir: account.dataDir,
      databaseUrl: account.databaseUrl,
      logFile: account.logFile,
    });
    const base = server.baseUrl;
    const headers = (name: string) => ({
      authorization: `Bearer ${keys.get(name)}`,
      "content-type": "application/json",
    });
    // Spread over the whole number range (about 1 % each start 4490 and 4470): exact below 2^53 for i < 3.4M.
    const destination = (i: number) => `44${String((i * 2654435761) % 1e10).padStart(10, "0")}`;
    const authorize =
      (name: string, tag = name) =>
      async (i: number) => {
        const res = await fetch(`${base}/v1/authorizations`, {
          method: "POST",
          headers: headers(name),
          body: JSON.stringify({ uuid: `${tag}-${i}`, destination: destination(i), maxDurationSeconds: 600 }),
        }).catch(() => null);
        if (!res) return "failed" as const;
        const text = await res.text();
        if (res.status === 201) return "admitted" as const;
        const code = (() => {
          try {
            return (JSON.parse(text) as { code?: string }).code;
          } catch {
            return undefined;
          }
        })();
        return code && REFUSALS.has(code) ? ("refused" as const) : ("failed" as const);
      };
    const floor = () => async (): Promise<Outcome> => {
      const res = await fetch(`${base}/internal/floor?bytes=512`, {
        method: "POST",
        headers: headers("noLimits"),
        body: "{}",
      }).catch(() => null);
      if (!res) return "failed";
      await res.text();
      return res.ok ? "admitted" : "failed";
    };
    const setLimits = async (name: string, limits: object) => {
      const put = await fetch(`${base}/v1/limits`, {
        method: "PUT",
        headers: headers(name),
        body: JSON.stringify(limits),
      });
      if (put.status !== 200) throw new Error(`PUT /v1/limits answered ${put.status}: ${await put.text()}`);
    };

    // Warm-up: the routes' modules loaded, a rate card cached.
    await paced(200, rate, authorize("noLimits", "warm"));
    await paced(200, rate, floor());
    const result: Record<string, unknown> = { engine, rate, seconds, window: windowSeconds };
    for (const name of RULES) await setLimits(name, RULE_ALONE[name]);
    await setLimits("everyRule", EVERY_RULE);
    const phases: Record<string, Paced> = { floor: await paced(count, rate, floor()) };
    for (const name of phaseNames) {
      // Each account's rate card is cached by its first call: one call outside the phase.
      await authorize(name)(-1);
      phases[name] = await paced(count, rate, authorize(name));
      log(`${name} at ${rate}/s: ${JSON.stringify(phases[name])}`);
    }
    result.phases = phases;
    const ratio = (a: Paced, b: Paced) => ({ p50: round(a.p50Ms / b.p50Ms, 2), p99: round(a.p99Ms / b.p99Ms, 2) });
    result.ratios = Object.fromEntries(
      phaseNames.map((n) => [
        n,
        { toFloor: ratio(phases[n], phases.floor), toNoLimits: ratio(phases[n], phases.noLimits) },
      ]),
    );

    // The highest sustained rate with every rule's p99 within `ratio` x the floor's, each rate on a fresh account.
    const steps: Record<string, unknown>[] = [];
    let highest: number | null = null;
    for (const r of searchRates) {
      const name = `search${r}`;
      await setLimits(name, EVERY_RULE);
      await authorize(name)(-1);
      const n = r * seconds;
      const f = await paced(n, r, floor());
      const e = await paced(n, r, authorize(name));
      const offered = f.achievedPerSecond >= 0.95 * r && e.achievedPerSecond >= 0.95 * r && e.failed === 0;
      const within = offered && e.p99Ms <= withinRatio * f.p99Ms;
      steps.push({ rate: r, floor: f, everyRule: e, p99RatioToFloor: round(e.p99Ms / f.p99Ms, 2), within });
      log(`search ${r}/s: floor p99 ${f.p99Ms}, every rule p99 ${e.p99Ms} (${e.achievedPerSecond}/s): ${within}`);
      if (!within) break;
      highest = r;
    }
    result.search = { ratio: withinRatio, highestRateWithin: highest, steps };

    // Batched ingest per rule: the calls authorized first (16 at a time, untimed), then their CDRs in batches of 1 000.
    const calls = ingestBatches * 1000;
    const ingest: Record<string, unknown> = {};
    for (const name of ingestNames) {
      const rule = name.replace(/^ingest-/, "");
      if (name === "ingestEveryRule") await setLimits(name, EVERY_RULE);
      else if (NON_BINDING[rule]) await setLimits(name, NON_BINDING[rule]);
      let next = 0;
      let admitted = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < calls) if ((await authorize(name)(next++)) === "admitted") admitted++;
        }),
      );
      const cpu0 = server.cpuSeconds();
      const db0 = await databaseCpu(account.databaseUrl);
      const t0 = performance.now();
      for (let b = 0; b < calls; b += 1000) {
        const cdrs = Array.from({ length: 1000 }, (_, j) => ({
          ...postedCdr(`${name}-${b + j}`, b + j),
          to: destination(b + j),
        }));
        const res = await fetch(`${base}/v1/cdrs`, {
          method: "POST",
          headers: headers(name),
          body: JSON.stringify({ cdrs }),
        });
        if (res.status !== 201) throw new Error(`POST /v1/cdrs answered ${res.status}: ${await res.text()}`);
      }
      const elapsed = (performance.now() - t0) / 1000;
      const perThousand = (s: number) => Math.round((s * 1e6) / calls);
      ingest[name] = {
        authorized: admitted,
        callsPerSecond: Math.round(calls / elapsed),
        serverCpuMsPer1000Calls: perThousand(server.cpuSeconds() - cpu0),
        databaseCpuMsPer1000Calls: perThousand(databaseCpuSpent(db0, await databaseCpu(account.databaseUrl))),
      };
      log(`${name}: ${JSON.stringify(ingest[name])}`);
    }
    result.ingest = ingest;
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server?.stop();
    await account.remove();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
