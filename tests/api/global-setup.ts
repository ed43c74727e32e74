import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase, type Db } from "@/lib/db/client";
import { createTestDatabase, type Engine } from "@/lib/testing/engines";
import { seedFixtures, type SeededData } from "./fixtures";

/**
 * Starts the production build twice, on PGlite and on PostgreSQL, each seeded with the same
 * fixtures, and hands base URLs and keys to the tests (`inject("apiServers")`). `npm test` runs
 * `next build` just before; NEXT_DIST_DIR selects another build folder.
 */
export interface ApiServer extends SeededData {
  engine: Engine;
  baseUrl: string;
  /** The server's stdout (one JSON line per request). */
  logFile: string;
  /** PostgreSQL only: the server's database, for tests that need to look underneath. */
  databaseUrl?: string;
}

/** A third, small server with a tight rate limit (RATE_LIMIT_RPS=1, burst 3) for the 429 row. */
export interface RateLimitedServer {
  baseUrl: string;
  key: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    apiServers: ApiServer[];
    rateLimitedServer: RateLimitedServer;
  }
}

const ROOT = path.resolve(__dirname, "../..");
const START_TIMEOUT_MS = 90_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilServing(baseUrl: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-4000) : "";
  throw new Error(`the server at ${baseUrl} did not start (exit ${child.exitCode}).\n${log}`);
}

interface Running {
  server: ApiServer;
  child: ChildProcess;
  cleanup: () => Promise<void>;
}

interface ServerOptions {
  seed: (db: Db) => Promise<SeededData>;
  env?: Record<string, string>;
}

async function startServer(engine: Engine, distDir: string, options: ServerOptions): Promise<Running> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cb-api-${engine}-`));
  const dataDir = path.join(workDir, "data");
  let databaseUrl: string | undefined;
  let dropDatabase = async () => undefined as void;
  if (engine === "postgres") {
    const created = await createTestDatabase();
    databaseUrl = created.url;
    dropDatabase = created.drop;
  }

  // Seed with the server not running: PGlite admits one process per data directory.
  const handle = await openDatabase(databaseUrl ? { url: databaseUrl } : { dir: dataDir, role: "cli" });
  let seeded: SeededData;
  try {
    seeded = await options.seed(handle.db);
  } finally {
    await handle.close();
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFile = path.join(workDir, "server.log");
  const out = fs.openSync(logFile, "a");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_DIST_DIR: distDir,
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    DATA_DIR: dataDir,
    RATE_LIMIT_RPS: "0",
    LOG_REQUESTS: "1",
    ...options.env,
  };
  delete env.DATABASE_URL;
  delete env.PUBLIC_BASE_URL;
  delete env.REDIS_URL;
  delete env.CURSOR_SECRET;
  delete env.SESSION_SECRET;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);

  const cleanup = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await dropDatabase().catch(() => undefined);
    if (!process.env.KEEP_API_TEST_DIRS) fs.rmSync(workDir, { recursive: true, force: true });
  };

  try {
    await waitUntilServing(baseUrl, child, logFile);
  } catch (e) {
    await cleanup();
    throw e;
  }
  return { server: { ...seeded, engine, baseUrl, logFile, databaseUrl }, child, cleanup };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!fs.existsSync(path.join(ROOT, distDir, "BUILD_ID"))) {
    throw new Error(`No production build in ${distDir}/: run \`NEXT_DIST_DIR=${distDir} npx next build\` first.`);
  }
  const running: Running[] = [];
  const teardown = async () => {
    await Promise.all(running.map((r) => r.cleanup()));
  };
  try {
    // One after the other: two cold starts at once on a small machine only slow both down.
    for (const engine of ["pglite", "postgres"] as const) running.push(await startServer(engine, distDir, { seed: seedFixtures }));
    let limitedKey = "";
    const limited = await startServer("pglite", distDir, {
      env: { RATE_LIMIT_RPS: "1", RATE_LIMIT_BURST: "3" },
      seed: async (db) => {
        const group = await createBillingGroup(db, { name: "Limited", currency: "USD" });
        limitedKey = (await createApiKey(db, { scopes: ["calls:read"], billingGroupId: group.id })).key;
        return {} as SeededData;
      },
    });
    running.push(limited);
    project.provide("rateLimitedServer", { baseUrl: limited.server.baseUrl, key: limitedKey });
  } catch (e) {
    await teardown();
    throw e;
  }
  project.provide("apiServers", running.slice(0, 2).map((r) => r.server));
  return teardown;
}
