// `npx tsx bench/ingest-fresh.ts [--engine postgres|pglite] [--calls 62500] [--singles 3000] [--posters 2]
//    [--rounds 2] [--reuse-build] [--profile DIR]`
// Ingest as a user meets it on a fresh production server (README "Benchmarks", case 1 on a fresh server): per round
// a new database (one group, one sell rate, one cdrs:write key) and a new `next start`, then N calls posted through
// POST /v1/cdrs in batches of 1 000 by `--posters` concurrent clients, then `--singles` one-call posts by the same
// clients. Reports calls/s of each phase and the server's RSS: after start (planner statistics ready), after a
// warm-up (one batch and a few single posts: the modules a request loads are loaded), and the peak while posting.
// The calls start on 2025-11-01, one a minute: months that have closed, as a late CDR backlog or an import (the
// invoice re-check marks are written for them). Prints one JSON object per round; the server's CPU per 1 000 batched
// calls (on PostgreSQL also its backends' CPU) are the figures to compare on a machine that is not idle. Not a test:
// nothing here asserts a timing; the targets (>= 10 000 calls/s batched on PostgreSQL on an idle machine, RSS
// < 300 MiB) are read off it.
import path from "node:path";
import { parseArgs } from "node:util";
import type { Engine } from "@/lib/testing/engines";
import { freshAccount, postedCdr } from "./fresh-account";
import { databaseCpu, databaseCpuSpent } from "./database-cpu";
import { BenchServer, buildProduction } from "./server";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "postgres" },
    calls: { type: "string", default: "62500" },
    singles: { type: "string", default: "3000" },
    posters: { type: "string", default: "2" },
    rounds: { type: "string", default: "2" },
    "reuse-build": { type: "boolean", default: false },
    profile: { type: "string" },
  },
});
const engine = values.engine as Engine;
const calls = Number(values.calls);
const singles = Number(values.singles);
const posters = Number(values.posters);
const log = (line: string) => process.stderr.write(`${line}\n`);
const cdr = (tag: string, i: number) => postedCdr(`fresh-${tag}-${i}`, i);

async function post(url: string, key: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${text.slice(0, 400)}`);
}

/** `count` items posted by `posters` concurrent clients; `make(i)` builds the body of item i. Seconds taken. */
async function postAll(count: number, make: (i: number) => unknown, url: string, key: string): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: posters }, async () => {
      for (let i = next++; i < count; i = next++) await post(url, key, make(i));
    }),
  );
  return (performance.now() - t0) / 1000;
}

async function round(n: number) {
  const account = await freshAccount(engine, "ingest");
  const { dataDir, databaseUrl, logFile, key } = account;
  let server: BenchServer | undefined;
  try {
    server = await BenchServer.start({
      dataDir,
      databaseUrl,
      logFile,
      cpuProfileDir: values.profile ? path.resolve(values.profile) : undefined,
    });
    const url = `${server.baseUrl}/v1/cdrs`;
    const atStart = server.memory().rssNowMiB;
    // Warm-up: one batch and a few single posts (calls of their own, far from the measured ones).
    await post(url, key, { cdrs: Array.from({ length: 1000 }, (_, j) => cdr(`w${n}`, j)) });
    for (let j = 0; j < 20; j++) await post(url, key, cdr(`ws${n}`, j));
    const afterWarmup = server.memory().rssNowMiB;
    server.resetPeak();
    const cpuBefore = server.cpuSeconds();
    const dbCpuBefore = await databaseCpu(databaseUrl);

    const batches = Math.ceil(calls / 1000);
    const batchSeconds = await postAll(
      batches,
      (b) => ({ cdrs: Array.from({ length: Math.min(1000, calls - b * 1000) }, (_, j) => cdr(`b${n}`, b * 1000 + j)) }),
      url,
      key,
    );
    const afterBatches = server.memory();
    const cpuBatched = server.cpuSeconds() - cpuBefore;
    const dbCpuBatched = databaseCpuSpent(dbCpuBefore, await databaseCpu(databaseUrl));
    const singleSeconds = await postAll(singles, (i) => cdr(`s${n}`, calls + i), url, key);
    const end = server.memory();
    const result = {
      engine,
      round: n,
      posters,
      batched: {
        calls,
        seconds: Number(batchSeconds.toFixed(2)),
        callsPerSecond: Math.round(calls / batchSeconds),
        serverCpuMsPer1000Calls: Math.round((cpuBatched * 1e6) / calls),
        ...(databaseUrl ? { databaseCpuMsPer1000Calls: Math.round((dbCpuBatched * 1e6) / calls) } : {}),
      },
      single: {
        calls: singles,
        seconds: Number(singleSeconds.toFixed(2)),
        callsPerSecond: Math.round(singles / singleSeconds),
      },
      rssMiB: {
        atStart,
        afterWarmup,
        peakBatched: Math.max(afterBatches.peakRssMiB, 0),
        peakAll: end.peakRssMiB,
        vmHwm: end.vmHwmMiB,
        atEnd: end.rssNowMiB,
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server?.stop();
    await account.remove();
  }
}

async function main() {
  buildProduction(log, values["reuse-build"]!);
  for (let n = 1; n <= Number(values.rounds); n++) await round(n);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
