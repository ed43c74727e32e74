// `npx tsx bench/authorize-limits.ts [--engine postgres|pglite] [--rate 200] [--seconds 10] [--window 60] [--reuse-build]`
// Authorizations as a switch sends them (issue 31 item 5), on a fresh production server: POST /v1/authorizations at a
// sustained rate (open loop: each request leaves at its scheduled time, whatever the earlier ones are doing, and its
// latency counts from that time, so a stall shows as queueing, not as fewer samples), first on an account without
// limits, then with every rule but the velocity windows on, then with every rule on (caps high enough that nothing is
// refused: each rule is evaluated, none decides; velocity windows of --window seconds). The framework's floor (/internal/floor, a constant JSON answer in the same build) is paced the same way
// in the same run: the ratios of p50/p99 to its are the cost of our code where this machine cannot offer the issue's
// 1 000 authorizations/s. Then the CDRs of the authorized calls are posted in batches of 1 000 (each settles its
// authorization) for each account: the server's and the database's CPU per 1 000 calls, limits off against on
// (ingest reads no rule; what differs is the settlement of authorizations). Prints one JSON object. Not a test.
import { parseArgs } from "node:util";
import { createApiKey } from "@/lib/auth/manage-keys";
import { openDatabase } from "@/lib/db/client";
import type { Engine } from "@/lib/testing/engines";
import { freshAccount, postedCdr, type FreshAccount } from "./fresh-account";
import { databaseCpu, databaseCpuSpent } from "./database-cpu";
import { BenchServer, buildProduction } from "./server";
import { percentile, round } from "./stats";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "postgres" },
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    /** The velocity rules' sliding window: their cost grows with the authorizations inside it. */
    window: { type: "string", default: "60" },
    "reuse-build": { type: "boolean", default: false },
  },
});
const engine = values.engine as Engine;
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const windowSeconds = Number(values.window);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The rules that read no window of past authorizations, none binding at this rate. */
const COUNTER_RULES = {
  maxConcurrentCalls: 1_000_000,
  callsPerSecond: 100_000,
  dailySpend: "1000000000.00",
  monthlySpend: "1000000000.00",
  blockedPrefixes: ["4490", "4470"],
  allowedPrefixes: ["44"],
};
/** Every rule on, none binding at this rate: the work of each rule is done, and every call is admitted. */
const EVERY_RULE = {
  ...COUNTER_RULES,
  distinctDestinations: { max: 1_000_000, windowSeconds },
  callsPerPrefix: { max: 1_000_000, windowSeconds },
};

interface Paced {
  sent: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  achievedPerSecond: number;
}

/** `count` requests at `perSecond`, each timed from its scheduled start; `send(i)` answers whether it succeeded. */
async function paced(count: number, perSecond: number, send: (i: number) => Promise<boolean>): Promise<Paced> {
  const latencies: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  const all: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    all.push(
      send(i).then((ok) => {
        latencies.push(performance.now() - due);
        if (!ok) failed++;
      }),
    );
  }
  await Promise.all(all);
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    sent: count,
    failed,
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    achievedPerSecond: Math.round(count / elapsed),
  };
}

/** A key of the account that may authorize, post CDRs and set its limits. */
async function keyOf(account: FreshAccount, groupId: string): Promise<string> {
  const handle = await openDatabase(
    account.databaseUrl ? { url: account.databaseUrl } : { dir: account.dataDir, role: "cli" },
  );
  try {
    return (
      await createApiKey(handle.db, { scopes: ["cdrs:write", "calls:read", "limits:write"], billingGroupId: groupId })
    ).key;
  } finally {
    await handle.close();
  }
}

async function main() {
  buildProduction(log, values["reuse-build"]!);
  const account = await freshAccount(engine, "authorize");
  let server: BenchServer | undefined;
  try {
    // Before the server starts: on PGlite the server then holds the data directory.
    const key = await keyOf(account, account.billingGroupId);
    server = await BenchServer.start({
      dataDir: account.dataDir,
      databaseUrl: account.databaseUrl,
      logFile: account.logFile,
    });
    const base = server.baseUrl;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const count = rate * seconds;
    const destination = (i: number) => `44${String((i * 48271) % 1e10).padStart(10, "0")}`;
    const authorize = (tag: string) => async (i: number) => {
      const res = await fetch(`${base}/v1/authorizations`, {
        method: "POST",
        headers,
        body: JSON.stringify({ uuid: `${tag}-${i}`, destination: destination(i), maxDurationSeconds: 600 }),
      });
      await res.text();
      return res.status === 201;
    };
    const floor = () => async () => {
      const res = await fetch(`${base}/internal/floor?bytes=512`, { method: "POST", headers, body: "{}" });
      await res.text();
      return res.ok;
    };

    // Warm-up: the routes' modules loaded, the rate card cached.
    await paced(200, rate, authorize("warm"));
    await paced(200, rate, floor());
    const result: Record<string, unknown> = { engine, rate, seconds };
    result.floor = await paced(count, rate, floor());
    result.noLimits = await paced(count, rate, authorize("off"));
    const setLimits = async (limits: object) => {
      const put = await fetch(`${base}/v1/limits`, { method: "PUT", headers, body: JSON.stringify(limits) });
      if (put.status !== 200) throw new Error(`PUT /v1/limits answered ${put.status}: ${await put.text()}`);
    };
    await setLimits(COUNTER_RULES);
    result.allButVelocity = await paced(count, rate, authorize("counters"));
    await setLimits(EVERY_RULE);
    result.everyRule = await paced(count, rate, authorize("on"));
    const ratio = (a: Paced, b: Paced) => ({ p50: round(a.p50Ms / b.p50Ms, 2), p99: round(a.p99Ms / b.p99Ms, 2) });
    result.ratioToFloor = {
      noLimits: ratio(result.noLimits as Paced, result.floor as Paced),
      allButVelocity: ratio(result.allButVelocity as Paced, result.floor as Paced),
      everyRule: ratio(result.everyRule as Paced, result.floor as Paced),
    };

    // The CDRs of those calls, in batches of 1 000: each settles its authorization.
    const ingest = async (tag: string, from: number) => {
      const cpu0 = server!.cpuSeconds();
      const db0 = await databaseCpu(account.databaseUrl);
      for (let b = 0; b < count; b += 1000) {
        const cdrs = Array.from({ length: Math.min(1000, count - b) }, (_, j) => {
          const cdr = postedCdr(`${tag}-${b + j}`, from + b + j);
          return { ...cdr, to: destination(b + j) };
        });
        const res = await fetch(`${base}/v1/cdrs`, { method: "POST", headers, body: JSON.stringify({ cdrs }) });
        if (res.status !== 201) throw new Error(`POST /v1/cdrs answered ${res.status}: ${await res.text()}`);
      }
      const perThousand = (s: number) => Math.round((s * 1e6) / count);
      return {
        serverCpuMsPer1000Calls: perThousand(server!.cpuSeconds() - cpu0),
        databaseCpuMsPer1000Calls: perThousand(databaseCpuSpent(db0, await databaseCpu(account.databaseUrl))),
      };
    };
    result.settlingIngest = { noLimits: await ingest("off", 0), everyRule: await ingest("on", count) };
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
