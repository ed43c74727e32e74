// The benchmark cases (README "Benchmarks") that run against a started server. Each returns plain figures; run.ts
// assembles the report.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { latency, throughput, type LatencyResult, type ThroughputResult } from "./http";
import type { Seeded } from "./seed";
import { BenchServer, ROOT } from "./server";
import { median, round } from "./stats";

export interface Sizes {
  listedCalls: number;
  totalCalls: number;
  ratePrefixes: number;
  lookups: number;
  latencySamples: number;
  /** Pages walked before the "deep" measurement. */
  deepPages: number;
  httpSeconds: number;
  httpRounds: number;
  /** Calls per mechanism of case 1 (POST batches, and admin cdrs import), split over rounds. */
  ingestCalls: number;
  ingestRounds: number;
  singleSeconds: number;
  /** Calls of the GET /v1/usage group (case 11), spread over 90 days. */
  usageCalls: number;
  /** Billing groups of the invoice run (case 24), each with a month of usage in the rollups. */
  invoiceGroups: number;
  /** Navigations per page and screen size of case 30 (first screen in Chromium). */
  screenRuns: number;
  /** Seconds of each phase of case 31 (authorizations at a sustained rate). */
  authorizeSeconds: number;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

// ---- case 4 (HTTP part) ----

export async function rateLatency(server: BenchServer, seeded: Seeded, samples: number): Promise<LatencyResult> {
  const destination = seeded.rateDestinations[0];
  // The first request loads the card (500k rows): outside the samples, reported separately.
  const t0 = performance.now();
  const first = await fetch(`${server.baseUrl}/v1/rates?destination=${destination}`, { headers: auth(seeded.readKey) });
  await first.text();
  const firstMs = performance.now() - t0;
  const result = await latency(`${server.baseUrl}/v1/rates?destination=${destination}`, auth(seeded.readKey), samples);
  return { ...result, firstRequestMs: round(firstMs) } as LatencyResult & { firstRequestMs: number };
}

// ---- case 3 ----

export interface ListingFigure {
  filter: string;
  pageSize: number;
  firstP50Ms: number;
  deepP50Ms: number | null;
  /** Rows skipped before the deep page (walked through nextPageUrl). */
  deepRows: number;
  ratio: number | null;
}

interface Page {
  calls: unknown[];
  nextPageUrl: string | null;
  meta: { hasMore: boolean };
}

export async function listing(
  server: BenchServer,
  seeded: Seeded,
  sizes: Sizes,
  log: (l: string) => void,
): Promise<ListingFigure[]> {
  const filters: [string, Record<string, string>][] = [
    ["none", {}],
    ["direction", { direction: "inbound" }],
    ["startTime", { "startTime[gte]": seeded.window.gte, "startTime[lte]": seeded.window.lte }],
    ["to", { to: seeded.toFragment }],
    ["hangupCause", { hangupCause: "no_answer" }],
  ];
  const headers = auth(seeded.readKey);
  const out: ListingFigure[] = [];
  for (const [name, params] of filters) {
    const url = (pageSize: number, cursor?: string) => {
      const u = new URL("/v1/calls", server.baseUrl);
      u.searchParams.set("pageSize", String(pageSize));
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      if (cursor) u.searchParams.set("cursor", cursor);
      return u.toString();
    };
    // Walk once with pages of 1000 (the cursor does not depend on the page size), keeping every
    // cursor; the deep page is deepPages pages of its size down, or as deep as leaves a full page.
    const positions: { cursor: string; rows: number }[] = [];
    let next: string | null = url(1000);
    let rows = 0;
    const walkStarted = performance.now();
    while (next && rows < sizes.deepPages * 1000 + 1000) {
      const res: Response = await fetch(next, { headers });
      if (res.status !== 200) throw new Error(`walk ${name}: ${res.status} ${await res.text()}`);
      const page = (await res.json()) as Page;
      rows += page.calls.length;
      if (!page.meta.hasMore || !page.nextPageUrl) break;
      next = page.nextPageUrl;
      positions.push({ cursor: new URL(next).searchParams.get("cursor")!, rows });
    }
    log(`  ${name}: walked ${rows} rows in ${Math.round(performance.now() - walkStarted)} ms`);
    const deepCursor = (pageSize: number) => {
      const limit = Math.min(sizes.deepPages * pageSize, rows - pageSize);
      return positions.filter((p) => p.rows <= limit).at(-1);
    };
    for (const pageSize of [50, 1000]) {
      const first = await latency(url(pageSize), headers, sizes.latencySamples);
      const deep = deepCursor(pageSize);
      // A deep page must be at least two pages further than the first one to say anything.
      const deepResult =
        deep && deep.rows >= pageSize * 2
          ? await latency(url(pageSize, deep.cursor), headers, sizes.latencySamples)
          : null;
      out.push({
        filter: name,
        pageSize,
        firstP50Ms: first.p50Ms,
        deepP50Ms: deepResult?.p50Ms ?? null,
        deepRows: deepResult ? deep!.rows : 0,
        ratio: deepResult ? round(deepResult.p50Ms / first.p50Ms, 2) : null,
      });
    }
  }
  return out;
}

// ---- case 5 ----

export interface OverheadResult {
  rates: ThroughputResult[];
  ratesFloor: ThroughputResult[];
  calls: ThroughputResult[];
  callsFloor: ThroughputResult[];
  ratesBytes: number;
  callsBytes: number;
}

export async function httpOverhead(
  server: BenchServer,
  seeded: Seeded,
  sizes: Sizes,
  log: (l: string) => void,
): Promise<OverheadResult> {
  const headers = auth(seeded.readKey);
  const ratesUrl = `${server.baseUrl}/v1/rates?destination=${seeded.rateDestinations[1]}`;
  const callsUrl = `${server.baseUrl}/v1/calls?pageSize=50`;
  const ratesBytes = (await latency(ratesUrl, headers, 1, 1)).bytes;
  const callsBytes = (await latency(callsUrl, headers, 1, 1)).bytes;
  const targets = {
    ratesFloor: `${server.baseUrl}/internal/floor?bytes=${ratesBytes}`,
    rates: ratesUrl,
    callsFloor: `${server.baseUrl}/internal/floor?bytes=${callsBytes}`,
    calls: callsUrl,
  };
  const result: OverheadResult = { rates: [], ratesFloor: [], calls: [], callsFloor: [], ratesBytes, callsBytes };
  for (const u of Object.values(targets)) await throughput(u, headers, 2); // warm-up (JIT, connections, caches)
  // Interleaved rounds: load from other work on the machine hits every target alike.
  for (let r = 0; r < sizes.httpRounds; r++) {
    for (const [name, u] of Object.entries(targets) as [keyof typeof targets, string][]) {
      const t = await throughput(u, headers, sizes.httpSeconds);
      if (t.non2xx > 0 || t.errors > 0) log(`  ${name}: ${t.non2xx} non-2xx, ${t.errors} errors`);
      result[name].push(t);
    }
    log(
      `  round ${r + 1}: ${Object.keys(targets)
        .map((k) => `${k} ${result[k as keyof typeof targets].at(-1)!.rps}/s`)
        .join(", ")}`,
    );
  }
  return result;
}

export const medianRps = (runs: ThroughputResult[]) => round(median(runs.map((r) => r.rps)));

// ---- cases 1 and 2 ----

let uuidCounter = 0;
const BASE = Date.UTC(2026, 10, 1, 0, 0, 0);

/** A native CDR of a completed, answered call to a destination of the ingest card. */
export function makeCdr(seeded: Seeded, groupId: string, tag: string, n: number): Record<string, unknown> {
  const i = uuidCounter++;
  const start = BASE + i * 1000;
  const talk = 5 + (i % 400);
  return {
    uuid: `bench-${tag}-${n}-${i}`,
    direction: "outbound",
    from: `1555${String(i % 1e7).padStart(7, "0")}`,
    to: seeded.ingestDestinations[i % seeded.ingestDestinations.length],
    startTime: new Date(start).toISOString(),
    answerTime: new Date(start + 2000).toISOString(),
    endTime: new Date(start + 2000 + talk * 1000).toISOString(),
    hangupCause: "NORMAL_CLEARING",
    q850Cause: 16,
    pdd: 1.5,
    readCodec: "PCMA",
    writeCodec: "PCMA",
    billingGroupId: groupId,
    supplierId: seeded.supplierId,
  };
}

export interface RateRun {
  calls: number;
  seconds: number;
  callsPerSecond: number;
}

async function postJson(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...auth(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Where an ingest case posts: POST /v1/cdrs, or the framework's floor answering `bytes` (the size /v1/cdrs answered). */
function ingestUrl(server: BenchServer, floorBytes?: number): string {
  return floorBytes === undefined
    ? `${server.baseUrl}/v1/cdrs`
    : `${server.baseUrl}/internal/floor?bytes=${floorBytes}`;
}

/**
 * Case 1, HTTP: batches of 1000 from 2 concurrent posters (each to its own group). With floorBytes, the same
 * bodies go to the floor route instead (Next.js reading them and answering that many bytes): the most this
 * case could reach on this machine with no work of ours.
 */
export async function ingestBatched(
  server: BenchServer,
  seeded: Seeded,
  sizes: Sizes,
  tag: string,
  log: (l: string) => void,
  floorBytes?: number,
  /** The posters' accounts: the root ones (default) or the three-tier ones (seeded.tiered). */
  accounts: Seeded["ingest"] = seeded.ingest,
): Promise<{ runs: RateRun[]; answerBytes: number }> {
  const url = ingestUrl(server, floorBytes);
  const posters = accounts.slice(0, 2);
  /** Size of the last answer (the warm-up sets it): what the floor run answers. */
  let answerBytes = 0;
  const post = async (p: (typeof posters)[number], batch: number) => {
    const cdrs = Array.from({ length: 1000 }, () => makeCdr(seeded, p.groupId, tag, batch));
    const res = await postJson(url, p.key, { cdrs });
    const text = await res.text();
    answerBytes = text.length;
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`POST ${url} batch answered ${res.status}: ${text.slice(0, 400)}`);
  };
  await Promise.all(posters.map((p) => post(p, -1))); // warm-up
  const perRound = Math.max(posters.length, Math.floor(sizes.ingestCalls / sizes.ingestRounds / 1000));
  const runs: RateRun[] = [];
  for (let r = 0; r < sizes.ingestRounds; r++) {
    let batch = 0;
    const t0 = performance.now();
    await Promise.all(
      posters.map(async (p) => {
        while (batch < perRound) await post(p, r * 1_000_000 + batch++);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    runs.push({
      calls: perRound * 1000,
      seconds: round(seconds, 2),
      callsPerSecond: round((perRound * 1000) / seconds),
    });
    log(
      `  POST batches${floorBytes === undefined ? "" : " (floor)"} round ${r + 1}: ${perRound * 1000} calls, ${runs.at(-1)!.callsPerSecond}/s`,
    );
  }
  return { runs, answerBytes };
}

/** Case 1, CLI: `admin cdrs import` of a native JSON-lines file, as an operator runs it (process start included). */
export async function ingestImport(
  seeded: Seeded,
  sizes: Sizes,
  env: NodeJS.ProcessEnv,
  workDir: string,
  tag: string,
  log: (l: string) => void,
): Promise<(RateRun & { reportedCallsPerSecond: number | null })[]> {
  const group = seeded.ingest[2 % seeded.ingest.length].groupId;
  const writeFile = (name: string, count: number) => {
    const file = path.join(workDir, name);
    const fd = fs.openSync(file, "w");
    let buf = "";
    for (let i = 0; i < count; i++) {
      buf += `${JSON.stringify(makeCdr(seeded, group, tag, 0))}\n`;
      if (buf.length > 1 << 20) {
        fs.writeSync(fd, buf);
        buf = "";
      }
    }
    fs.writeSync(fd, buf);
    fs.closeSync(fd);
    return file;
  };
  const run = (file: string) =>
    new Promise<{ seconds: number; summary: { inserted?: number; callsPerSecond?: number } }>((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "cli/admin.ts", "cdrs", "import", "--file", file, "--format", "native"],
        {
          cwd: ROOT,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err = (err + d).slice(-4000)));
      child.on("exit", (code) => {
        const seconds = (performance.now() - t0) / 1000;
        if (code !== 0) return reject(new Error(`admin cdrs import exited ${code}: ${err}`));
        try {
          resolve({ seconds, summary: JSON.parse(out) });
        } catch {
          reject(new Error(`admin cdrs import printed no JSON: ${out.slice(0, 400)} ${err}`));
        }
      });
    });
  await run(writeFile("warmup.jsonl", 1000));
  const perRound = Math.floor(sizes.ingestCalls / sizes.ingestRounds);
  const runs = [];
  for (let r = 0; r < sizes.ingestRounds; r++) {
    const file = writeFile(`import-${r}.jsonl`, perRound);
    const { seconds, summary } = await run(file);
    fs.rmSync(file);
    if (summary.inserted !== perRound)
      throw new Error(
        `admin cdrs import inserted ${summary.inserted} of ${perRound}: ${JSON.stringify(summary).slice(0, 400)}`,
      );
    runs.push({
      calls: perRound,
      seconds: round(seconds, 2),
      callsPerSecond: round(perRound / seconds),
      reportedCallsPerSecond: summary.callsPerSecond ?? null,
    });
    log(
      `  admin cdrs import round ${r + 1}: ${perRound} calls, ${runs.at(-1)!.callsPerSecond}/s (wall, process start included)`,
    );
  }
  return runs;
}

export interface SingleCallResult {
  posters: number;
  groups: number;
  seconds: number;
  calls: number;
  callsPerSecond: number;
  errors: number;
  firstError?: string;
  /** Size of a 201 answer (what the floor run answers). */
  answerBytes: number;
}

/** Case 2: each poster POSTs one CDR at a time for a fixed duration; posters share groups round-robin. */
export async function ingestSingle(
  server: BenchServer,
  seeded: Seeded,
  posters: number,
  seconds: number,
  tag: string,
  floorBytes?: number,
): Promise<SingleCallResult> {
  const url = ingestUrl(server, floorBytes);
  let answerBytes = 0;
  let calls = 0;
  let errors = 0;
  let firstError: string | undefined;
  const groups = Math.min(posters, seeded.ingest.length);
  const poster = async (n: number, until: number, count: boolean) => {
    const g = seeded.ingest[n % groups];
    while (performance.now() < until) {
      try {
        const res = await postJson(url, g.key, makeCdr(seeded, g.groupId, tag, n));
        const text = await res.text();
        if (res.status === 201) {
          answerBytes = text.length;
          if (count) calls++;
        } else {
          errors++;
          firstError ??= `${res.status} ${text.slice(0, 300)}`;
        }
      } catch (e) {
        errors++;
        firstError ??= String(e);
      }
    }
  };
  const warm = performance.now() + 1000;
  await Promise.all(Array.from({ length: posters }, (_, n) => poster(n, warm, false)));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: posters }, (_, n) => poster(n, t0 + seconds * 1000, true)));
  const elapsed = (performance.now() - t0) / 1000;
  return {
    posters,
    groups,
    seconds: round(elapsed, 2),
    calls,
    callsPerSecond: round(calls / elapsed),
    errors,
    firstError,
    answerBytes,
  };
}
