import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

// Starting the production build for HTTP tests, reliability tests and benchmarks: one way to do
// it, so every harness runs the server the same way (clean environment, loopback only).

export const ROOT = path.resolve(__dirname, "../..");

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
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

export interface NextServerOptions {
  port: number;
  /** Folder of the production build (`next build` output), e.g. ".next". */
  distDir: string;
  dataDir: string;
  /** PostgreSQL; absent: the embedded engine in dataDir. */
  databaseUrl?: string;
  /** Server output goes here (appended). */
  logFile: string;
  /** Extra variables; they win over the defaults. */
  env?: Record<string, string>;
  /** Node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** Own process group, so the whole tree can be killed at once. */
  detached?: boolean;
  /** Runs the server through a launcher: gets the server's argv, returns the argv to spawn. */
  wrap?: (argv: string[]) => string[];
}

// Never inherited from the caller's shell: each server gets exactly the store and secrets it is given.
const ISOLATED = [
  "DATABASE_URL",
  "PUBLIC_BASE_URL",
  "TRUSTED_PROXIES",
  "AUTH_FAILURES_PER_MINUTE",
  "AUTH_FAILURE_BURST",
  "REDIS_URL",
  "CURSOR_SECRET",
  "SESSION_SECRET",
];

/** Spawns `next start` on 127.0.0.1 with a clean environment. Does not wait for it. */
export function spawnNextServer(options: NextServerOptions): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ISOLATED) delete env[name];
  Object.assign(env, {
    NODE_ENV: "production",
    NEXT_DIST_DIR: options.distDir,
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(options.port),
    DATA_DIR: options.dataDir,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  const out = fs.openSync(options.logFile, "a");
  const argv = [
    process.execPath,
    ...(options.nodeArgs ?? []),
    path.join(ROOT, "node_modules/next/dist/bin/next"),
    "start",
    "-p",
    String(options.port),
    "-H",
    "127.0.0.1",
  ];
  const [command, ...args] = options.wrap ? options.wrap(argv) : argv;
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", out, out],
    detached: options.detached ?? false,
  });
  fs.closeSync(out);
  return child;
}

/** Resolves once the server answers /v1/openapi.json; throws with the log's tail if it exits or times out. */
export async function waitUntilServing(
  baseUrl: string,
  child: ChildProcess,
  logFile: string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const res = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-4000) : "";
  throw new Error(`the server at ${baseUrl} did not start (exit ${child.exitCode}).\n${log}`);
}

/** The production build to serve (`.next`, or NEXT_DIST_DIR); throws when it has not been built. */
export function productionDistDir(): string {
  const dir = process.env.NEXT_DIST_DIR || ".next";
  if (!fs.existsSync(path.join(ROOT, dir, "BUILD_ID"))) {
    throw new Error(`No production build in ${dir}/: run \`NEXT_DIST_DIR=${dir} npx next build\` first.`);
  }
  return dir;
}
