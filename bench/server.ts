// Builds and runs the production server the HTTP cases measure: `next start` of NEXT_DIST_DIR (default .next-bench),
// loopback only, rate limiting and request logging off, the framework-floor route enabled.
import { spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, ROOT, spawnNextServer, waitUntilServing } from "@/lib/testing/next-server";
import serverNodeFlags from "../scripts/server-node-flags.json";

export { ROOT };
/** Helpers sharing a tree each bench their own build: NEXT_DIST_DIR when set. */
export const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const START_TIMEOUT_MS = 120_000;

export function buildProduction(log: (line: string) => void, reuse: boolean): void {
  if (reuse && fs.existsSync(path.join(ROOT, DIST_DIR, "BUILD_ID"))) {
    log(`reusing the production build in ${DIST_DIR} (--reuse-build)`);
    return;
  }
  log(`next build (NEXT_DIST_DIR=${DIST_DIR}) ...`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    cwd: ROOT,
    env: { ...process.env, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`next build failed:\n${(result.stdout + result.stderr).slice(-4000)}`);
  log(`next build done in ${Math.round((performance.now() - started) / 1000)} s`);
}

export interface ServerOptions {
  dataDir: string;
  databaseUrl?: string;
  logFile: string;
  /** Directory for a V8 CPU profile of the server (node --cpu-prof), written when it stops. */
  cpuProfileDir?: string;
}

/** RSS of a process and its descendants, in bytes, from /proc (Linux). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const taskDir = `/proc/${out[i]}/task`;
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(taskDir);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        for (const c of fs.readFileSync(`${taskDir}/${tid}/children`, "utf8").trim().split(/\s+/))
          if (c) out.push(Number(c));
      } catch {
        // gone
      }
    }
  }
  return out;
}

function statusKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used, in seconds, from /proc (clock ticks of 1/100 s on Linux). */
export function cpuSecondsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14 and stime 15.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Waits until the log, past `offset`, holds `text`; throws when the server exits or after `timeoutMs`. */
async function waitForLogLine(
  logFile: string,
  offset: number,
  text: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = fs.readFileSync(logFile).subarray(offset).toString("utf8");
    if (log.includes(text)) return;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the server did not log ${text} (exit ${child.exitCode}).\n${log.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export class BenchServer {
  readonly baseUrl: string;
  private child: ChildProcess;
  private sampler?: NodeJS.Timeout;
  private peakRssKiB = 0;

  private constructor(baseUrl: string, child: ChildProcess) {
    this.baseUrl = baseUrl;
    this.child = child;
  }

  get pid(): number {
    return this.child.pid!;
  }

  static async start(options: ServerOptions): Promise<BenchServer> {
    const port = await freePort();
    const logOffset = fs.existsSync(options.logFile) ? fs.statSync(options.logFile).size : 0;
    const child = spawnNextServer({
      port,
      distDir: DIST_DIR,
      dataDir: options.dataDir,
      databaseUrl: options.databaseUrl,
      logFile: options.logFile,
      env: { RATE_LIMIT_RPS: "0", LOG_REQUESTS: "0", BENCH_FLOOR: "1" },
      // The V8 flags `npm start` runs the server with (scripts/start.mjs): measure the server as shipped.
      nodeArgs: [
        ...serverNodeFlags,
        ...(options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
      ],
    });
    const server = new BenchServer(`http://127.0.0.1:${port}`, child);
    try {
      await waitUntilServing(server.baseUrl, child, options.logFile, START_TIMEOUT_MS);
      // The server gathers the statistics a seeded database lacks at start, in the background (lib/server/boot.ts):
      // measure once it has, as a user's server that has been up for a moment.
      await waitForLogLine(options.logFile, logOffset, '"event":"planner statistics ready"', child, START_TIMEOUT_MS);
    } catch (e) {
      child.kill("SIGKILL");
      throw e;
    }
    server.sampler = setInterval(() => server.sample(), 100);
    server.sampler.unref();
    return server;
  }

  private sample(): void {
    let total = 0;
    for (const pid of processTree(this.pid)) total += statusKiB(pid, "VmRSS");
    if (total > this.peakRssKiB) this.peakRssKiB = total;
  }

  /** Peak resident memory: the larger of the sampled tree RSS and the kernel's high-water mark of the server process. */
  memory(): { peakRssMiB: number; vmHwmMiB: number; rssNowMiB: number } {
    this.sample();
    return {
      peakRssMiB: Math.round(this.peakRssKiB / 1024),
      vmHwmMiB: Math.round(statusKiB(this.pid, "VmHWM") / 1024),
      rssNowMiB: Math.round(statusKiB(this.pid, "VmRSS") / 1024),
    };
  }

  /**
   * CPU seconds the server's processes have used so far: what a phase costs the server whatever else the machine
   * runs (wall-clock rates fall on a busy machine, CPU per call much less).
   */
  cpuSeconds(): number {
    return processTree(this.pid).reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  }

  /** Starts a new peak window (the sampled peak only; VmHWM is per process lifetime). */
  resetPeak(): void {
    this.peakRssKiB = 0;
  }

  async stop(): Promise<void> {
    if (this.sampler) clearInterval(this.sampler);
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    // SIGINT lets node write a --cpu-prof profile; SIGKILL if it hangs.
    this.child.kill("SIGINT");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
}
