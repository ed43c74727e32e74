// `npx tsx bench/listing-after-ingest.ts [--engine pglite|postgres] [--calls 60000] [--reuse-build] [--then-analyze]`
// The listing as a user meets it after posting calls to a fresh server (README "Planner statistics"): a production
// server on an empty database, N calls of one group posted in batches of 1 000 through POST /v1/cdrs, then
// GET /v1/calls?pageSize=1000, first page and a page 30 000 rows deep, p50 at concurrency 1. No hand-run ANALYZE:
// whatever statistics the planner has, the product gathered. --then-analyze also measures after a manual ANALYZE
// (and, on PGlite, a restart), the reference. Prints one JSON object. Not a test: nothing here asserts a timing.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { openDatabase, queryRows } from "@/lib/db/client";
import type { Engine } from "@/lib/testing/engines";
import { freshAccount, postedCdr } from "./fresh-account";
import { latency } from "./http";
import { BenchServer, buildProduction } from "./server";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "pglite" },
    calls: { type: "string", default: "60000" },
    samples: { type: "string", default: "20" },
    "reuse-build": { type: "boolean", default: false },
    "then-analyze": { type: "boolean", default: false },
  },
});
const engine = values.engine as Engine;
const calls = Number(values.calls);
const samples = Number(values.samples);
const DEEP_ROWS = 30_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  buildProduction(log, values["reuse-build"]!);
  const account = await freshAccount(engine, "listing");
  const { dataDir, databaseUrl, logFile, key } = account;
  const start = () => BenchServer.start({ dataDir, databaseUrl, logFile });
  let server: BenchServer | undefined;
  try {
    server = await start();
    const headers = { authorization: `Bearer ${key}` };
    const ingestStarted = performance.now();
    for (let from = 0; from < calls; from += 1000) {
      const cdrs = Array.from({ length: Math.min(1000, calls - from) }, (_, j) =>
        postedCdr(`listing-${from + j}`, from + j),
      );
      const res = await fetch(`${server.baseUrl}/v1/cdrs`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ cdrs }),
      });
      if (res.status !== 201) throw new Error(`POST /v1/cdrs answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    log(`${engine}: ${calls} calls posted in ${ingestSeconds.toFixed(1)} s`);

    const measure = async () => {
      const url = (cursor?: string) =>
        `${server!.baseUrl}/v1/calls?pageSize=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      let next: string | null = url();
      let rows = 0;
      while (next && rows < DEEP_ROWS) {
        const page = (await (await fetch(next, { headers })).json()) as {
          calls: unknown[];
          nextPageUrl: string | null;
        };
        rows += page.calls.length;
        next = page.nextPageUrl;
      }
      const deepCursor = next ? new URL(next).searchParams.get("cursor")! : undefined;
      const firstPage = await latency(url(), headers, samples);
      const deepPage = deepCursor ? await latency(url(deepCursor), headers, samples) : null;
      return { firstP50Ms: firstPage.p50Ms, deepP50Ms: deepPage?.p50Ms ?? null, deepRows: rows };
    };
    const result: Record<string, unknown> = {
      engine,
      calls,
      ingestSeconds: Number(ingestSeconds.toFixed(1)),
      asPosted: await measure(),
    };
    const statistics = fs
      .readFileSync(logFile, "utf8")
      .split("\n")
      .filter((l) => l.includes("planner statistics"));
    result.serverLog = statistics;

    if (values["then-analyze"]) {
      if (engine === "pglite") {
        await server.stop();
        server = undefined;
        const again = await openDatabase({ dir: dataDir, role: "cli" });
        await again.db.execute(sql`ANALYZE`);
        await again.close();
        server = await start();
      } else {
        const again = await openDatabase({ url: databaseUrl! });
        await again.db.execute(sql`ANALYZE calls`);
        await again.close();
      }
      result.afterManualAnalyze = await measure();
    }
    await server.stop();
    server = undefined;
    const db = await openDatabase(databaseUrl ? { url: databaseUrl } : { dir: dataDir, role: "cli" });
    const [stats] = await queryRows<{ tuples: number; columns: number }>(
      db.db,
      sql`SELECT reltuples::float8 AS tuples, (SELECT count(*)::int FROM pg_stats WHERE tablename = 'calls' AND inherited) AS columns
          FROM pg_class WHERE oid = 'calls'::regclass`,
    );
    result.callsStatistics = stats;
    await db.close();
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
