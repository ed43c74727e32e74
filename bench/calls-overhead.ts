// A short loop for one figure of case 5: GET /v1/calls?pageSize=50 against the floor of the same size,
// interleaved rounds on one server, optionally with a CPU profile of the server covering only the
// GET /v1/calls rounds' process (warm-up included). Small data, so a change can be measured in a minute:
// `npx tsx bench/calls-overhead.ts [--engines pglite,postgres] [--seconds 5] [--rounds 3] [--profile] [--cost]`
// (NEXT_DIST_DIR selects the production build, which must exist; BENCH_RESULTS_DIR where profiles go).
// --cost lists with a calls:read_cost key (the cost fields), besides the plain calls:read one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createApiKey } from "@/lib/auth/manage-keys";
import { openDatabase } from "@/lib/db/client";
import { createTestDatabase, type Engine } from "@/lib/testing/engines";
import { latency, throughput } from "./http";
import { seed } from "./seed";
import { BenchServer, ROOT } from "./server";
import { median, round } from "./stats";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engines: { type: "string", default: "pglite" },
      seconds: { type: "string", default: "5" },
      rounds: { type: "string", default: "3" },
      listed: { type: "string", default: "20000" },
      profile: { type: "boolean", default: false },
      cost: { type: "boolean", default: false },
    },
  });
  const resultsDir = path.resolve(ROOT, process.env.BENCH_RESULTS_DIR || "bench/results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const seconds = Number(values.seconds);
  const listed = Number(values.listed);
  for (const engine of values.engines!.split(",") as Engine[]) {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cb-calls-${engine}-`));
    const dataDir = path.join(workDir, "data");
    const created = engine === "postgres" ? await createTestDatabase() : undefined;
    let server: BenchServer | undefined;
    try {
      const handle = await openDatabase(created ? { url: created.url } : { dir: dataDir, role: "cli" });
      const seeded = await seed(
        handle.db,
        { listedCalls: listed, totalCalls: listed * 2, ratePrefixes: 1000, ingestGroups: 1 },
        () => undefined,
      );
      const costKey = (
        await createApiKey(handle.db, {
          scopes: ["calls:read", "calls:read_cost"],
          billingGroupId: seeded.listedGroupId,
          name: "cost",
        })
      ).key;
      await handle.close();
      const profileDir = values.profile ? path.join(resultsDir, `calls-profile-${engine}`) : undefined;
      if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
      server = await BenchServer.start({
        dataDir,
        databaseUrl: created?.url,
        logFile: path.join(resultsDir, `calls-server-${engine}.log`),
        cpuProfileDir: profileDir,
      });
      const url = `${server.baseUrl}/v1/calls?pageSize=50`;
      const keys: [string, string][] = [["calls", seeded.readKey]];
      if (values.cost) keys.push(["callsCost", costKey]);
      const targets: [string, string, string][] = [];
      for (const [name, key] of keys) {
        const bytes = (await latency(url, { authorization: `Bearer ${key}` }, 1, 1)).bytes;
        // A profile covers the listing only: the floor's requests would dilute it.
        if (!profileDir)
          targets.push([
            `floor${name === "calls" ? "" : "Cost"}`,
            `${server.baseUrl}/internal/floor?bytes=${bytes}`,
            key,
          ]);
        targets.push([name, url, key]);
      }
      for (const [, u, key] of targets) await throughput(u, { authorization: `Bearer ${key}` }, 2);
      const rps = new Map<string, number[]>();
      for (let r = 0; r < Number(values.rounds); r++) {
        for (const [name, u, key] of targets) {
          const t = await throughput(u, { authorization: `Bearer ${key}` }, seconds);
          if (t.non2xx || t.errors) process.stderr.write(`${name}: ${t.non2xx} non-2xx, ${t.errors} errors\n`);
          rps.set(name, [...(rps.get(name) ?? []), t.rps]);
        }
        process.stderr.write(
          `${engine} round ${r + 1}: ${targets.map(([n]) => `${n} ${rps.get(n)!.at(-1)}`).join(", ")}  (load ${os.loadavg()[0].toFixed(1)})\n`,
        );
      }
      const m = (n: string) => median(rps.get(n)!);
      const ratios = profileDir
        ? {}
        : Object.fromEntries(keys.map(([n]) => [n, round(m(n) / m(n === "calls" ? "floor" : "floorCost"), 3)]));
      process.stdout.write(
        `${JSON.stringify({ engine, medianRps: Object.fromEntries(targets.map(([n]) => [n, m(n)])), ratios })}\n`,
      );
    } finally {
      await server?.stop();
      await created?.drop();
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
