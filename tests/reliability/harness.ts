import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase, queryRows, type Db, type DbHandle } from "@/lib/db/client";
import { createTestDatabase, type Engine } from "@/lib/testing/engines";
import { bearer, http, type HttpResult } from "@/lib/testing/http-client";
import {
  freePort,
  productionDistDir as distDir,
  ROOT,
  spawnNextServer,
  waitUntilServing,
} from "@/lib/testing/next-server";

export { ROOT };

/**
 * What the reliability tests need beyond tests/api: a store that outlives its server (so the
 * server can be killed with SIGKILL and started again on the same data), the server's memory,
 * and the ledger invariant read straight from the database. Servers are the production build
 * (`.next`, or NEXT_DIST_DIR), on 127.0.0.1 only.
 */

const START_TIMEOUT_MS = 180_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function testSeed(): number {
  const fromEnv = Number(process.env.RELIABILITY_SEED);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
}

/** A database (PGlite directory or fresh PostgreSQL database) that servers come and go on. */
export class Store {
  private constructor(
    readonly engine: Engine,
    readonly workDir: string,
    readonly dataDir: string,
    readonly databaseUrl: string | undefined,
    private readonly drop: () => Promise<void>,
  ) {}

  static async create(engine: Engine, label: string): Promise<Store> {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cb-rel-${label}-${engine}-`));
    if (engine === "postgres") {
      const created = await createTestDatabase();
      return new Store(engine, workDir, path.join(workDir, "data"), created.url, created.drop);
    }
    return new Store(engine, workDir, path.join(workDir, "data"), undefined, async () => undefined);
  }

  /** Opens the database in this process. On PGlite only while no server holds the directory. */
  open(): Promise<DbHandle> {
    return openDatabase(this.databaseUrl ? { url: this.databaseUrl } : { dir: this.dataDir, role: "cli" });
  }

  async withDb<T>(run: (db: Db) => Promise<T>): Promise<T> {
    const handle = await this.open();
    try {
      return await run(handle.db);
    } finally {
      await handle.close();
    }
  }

  async dispose(): Promise<void> {
    await this.drop().catch(() => undefined);
    if (!process.env.KEEP_RELIABILITY_DIRS) fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}

export interface AppOptions {
  env?: Record<string, string>;
  /** Overrides the store's DATABASE_URL (e.g. through a TCP proxy). */
  databaseUrl?: string;
  port?: number;
  /**
   * Runs the server, in a process group of its own, under a parent that never reaps it (sh exec'ing
   * sleep): after kill9() its pid stays a zombie until reap(), as under an init that does not reap or
   * in the moment before a supervisor does. That is what `npm start` right after `kill -9` meets.
   */
  unreaped?: boolean;
}

// Servers still running when this test process exits (a timeout, a crash) are not left behind.
const liveGroups = new Set<number>();
process.once("exit", () => {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** State letter of /proc/<pid>/stat (R, S, D, Z, ...); undefined when there is no such process. */
export function processState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

function gone(pid: number): boolean {
  const state = processState(pid);
  return state === undefined || state === "Z" || state === "X";
}

/** The pid the launcher writes once it has forked the server (a loaded machine may take its time: a deadline only). */
async function serverPidFrom(file: string, keeper: ChildProcess): Promise<number> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : "";
    if (/^\d+$/.test(text)) return Number(text);
    if (keeper.exitCode !== null || keeper.signalCode !== null) break;
    await sleep(10);
  }
  throw new Error("the server's launcher did not tell its pid");
}

/** One `next start` process of the production build, in its own process group. */
export class AppServer {
  private constructor(
    /** What was spawned: the server itself, or (unreaped) the parent that never reaps it. */
    readonly child: ChildProcess,
    private readonly serverPid: number,
    readonly baseUrl: string,
    readonly port: number,
    readonly logFile: string,
  ) {}

  /** The `next start` process (leader of its process group). */
  get pid(): number {
    return this.serverPid;
  }

  private get unreaped(): boolean {
    return this.serverPid !== this.child.pid;
  }

  static async start(store: Store, options: AppOptions = {}): Promise<AppServer> {
    const port = options.port ?? (await freePort());
    const logFile = path.join(store.workDir, `server-${port}-${Date.now()}.log`);
    const pidFile = options.unreaped ? `${logFile}.pid` : undefined;
    const child = spawnNextServer({
      port,
      distDir: distDir(),
      dataDir: store.dataDir,
      databaseUrl: options.databaseUrl ?? store.databaseUrl,
      logFile,
      // Key sign-in (development only) is what these tests open sessions with.
      env: { LOG_REQUESTS: "0", PORTAL_KEY_SIGN_IN: "1", ...options.env },
      detached: true, // its own process group, so kill9() takes anything it spawned too
      // setsid: the server leads a group of its own, apart from its launcher (which then becomes sleep).
      wrap: pidFile
        ? (argv) => ["sh", "-c", `setsid "$@" & echo $! > '${pidFile}'; exec sleep 86400`, "sh", ...argv]
        : undefined,
    });
    liveGroups.add(child.pid!);
    child.once("exit", () => liveGroups.delete(child.pid!));
    const serverPid = pidFile ? await serverPidFrom(pidFile, child) : child.pid!;
    liveGroups.add(serverPid);
    const server = new AppServer(child, serverPid, `http://127.0.0.1:${port}`, port, logFile);
    try {
      await server.waitUntilServing();
    } catch (e) {
      await server.kill9();
      await server.reap();
      throw e;
    }
    return server;
  }

  private waitUntilServing(): Promise<void> {
    // waitUntilServing stops early when the process it is given exits: under a launcher, that is the server.
    const exited = () => gone(this.serverPid);
    const watched = this.unreaped
      ? ({
          get exitCode() {
            return exited() ? -1 : null;
          },
          signalCode: null,
        } as unknown as ChildProcess)
      : this.child;
    return waitUntilServing(this.baseUrl, watched, this.logFile, START_TIMEOUT_MS);
  }

  log(): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, "utf8") : "";
  }

  get running(): boolean {
    if (this.unreaped) return !gone(this.serverPid);
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resident memory of the server's process group, in bytes (Linux /proc). */
  rssBytes(): number {
    let total = 0;
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        // Fields after the command name: state ppid pgrp ...
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) !== this.pid) continue;
        const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
        const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        total += kib * 1024;
      } catch {
        // the process went away while we looked
      }
    }
    return total;
  }

  /**
   * SIGKILL to the server's whole process group: no shutdown hook, no lock release, no flush.
   * Resolves once it has exited; unreaped, once it is a zombie (not yet reaped: see reap()).
   */
  async kill9(): Promise<void> {
    if (!this.running) return;
    const exited = this.unreaped ? null : new Promise((r) => this.child.once("exit", r));
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      process.kill(this.pid, "SIGKILL");
    }
    if (exited) await exited;
    else while (!gone(this.serverPid)) await sleep(5);
    liveGroups.delete(this.serverPid);
  }

  /** Unreaped: ends the parent that never reaps, so the dead server's pid is released. */
  async reap(): Promise<void> {
    if (!this.unreaped || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGKILL");
    await exited;
  }

  async stop(): Promise<void> {
    if (this.running) {
      const exited = this.unreaped ? null : new Promise((r) => this.child.once("exit", r));
      process.kill(this.pid, "SIGTERM");
      const timer = setTimeout(() => void this.kill9(), 10_000);
      if (exited) await exited;
      else while (!gone(this.serverPid)) await sleep(20);
      clearTimeout(timer);
    }
    await this.reap();
  }
}

export { bearer, http, type HttpResult };

/** POST /v1/cdrs with a JSON body. */
export function postCdrs(baseUrl: string, key: string, body: unknown, timeoutMs = 60_000): Promise<HttpResult> {
  return http(baseUrl, "/v1/cdrs", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
    timeoutMs,
  });
}

/** The problem+json shape of docs/contract.md §3; returns what is wrong, or null. */
export function problemDefect(res: HttpResult): string | null {
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("application/problem+json")) return `content-type ${type}`;
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object") return "body is not JSON";
  for (const field of ["type", "title", "detail", "code"])
    if (typeof body[field] !== "string") return `${field} missing`;
  if (body.status !== res.status) return `status ${String(body.status)} in the body, ${res.status} on the wire`;
  return null;
}

export interface GroupLedger {
  id: string;
  balance: bigint;
  credits: bigint;
  charged: bigint;
  debits: bigint;
  ratedCalls: number;
  debitEntries: number;
}

/**
 * Per group: the balance, opening + top-ups, the sum of its rated calls' prices and of its debit
 * entries, and how many priced calls vs debit entries (each priced call is debited exactly once).
 */
export async function ledgerOf(db: Db): Promise<GroupLedger[]> {
  const rows = await queryRows<{
    id: string;
    balance: bigint;
    credits: bigint;
    charged: bigint;
    debits: bigint;
    rated_calls: bigint;
    debit_entries: bigint;
  }>(
    db,
    sql`SELECT g.id, g.balance_micros AS balance,
          (SELECT coalesce(sum(l.amount_micros), 0)::bigint FROM ledger_entries l WHERE l.billing_group_id = g.id AND l.kind IN ('opening', 'topup')) AS credits,
          (SELECT coalesce(sum(c.price_micros), 0)::bigint FROM calls c WHERE c.billing_group_id = g.id AND c.rated) AS charged,
          (SELECT coalesce(-sum(l.amount_micros), 0)::bigint FROM ledger_entries l WHERE l.billing_group_id = g.id AND l.kind = 'debit') AS debits,
          (SELECT count(*)::bigint FROM calls c WHERE c.billing_group_id = g.id AND c.rated AND c.price_micros > 0) AS rated_calls,
          (SELECT count(*)::bigint FROM ledger_entries l JOIN calls c ON c.id = l.call_id
             WHERE l.billing_group_id = g.id AND l.kind = 'debit' AND l.amount_micros = -c.price_micros) AS debit_entries
        FROM billing_groups g ORDER BY g.id`,
  );
  return rows.map((r) => ({
    id: r.id,
    balance: BigInt(r.balance),
    credits: BigInt(r.credits),
    charged: BigInt(r.charged),
    debits: BigInt(r.debits),
    ratedCalls: Number(r.rated_calls),
    debitEntries: Number(r.debit_entries),
  }));
}

/** Every way a group's ledger can disagree with its balance or its calls; empty when sound. */
export function ledgerDefects(ledger: GroupLedger[]): string[] {
  const out: string[] = [];
  for (const g of ledger) {
    if (g.credits - g.charged !== g.balance)
      out.push(`${g.id}: opening+top-ups ${g.credits} - prices ${g.charged} != balance ${g.balance}`);
    if (g.debits !== g.charged) out.push(`${g.id}: debit entries ${g.debits} != sum of prices ${g.charged}`);
    if (g.debitEntries !== g.ratedCalls)
      out.push(`${g.id}: ${g.debitEntries} matching debit entries for ${g.ratedCalls} priced calls`);
  }
  return out;
}

/** uuid -> stored? for the given uuids. */
export async function storedUuids(db: Db, uuids: string[]): Promise<Set<string>> {
  const rows = await queryRows<{ uuid: string }>(
    db,
    sql`SELECT uuid FROM calls WHERE uuid IN (SELECT json_array_elements_text(${JSON.stringify(uuids)}::json))`,
  );
  return new Set(rows.map((r) => r.uuid));
}

/**
 * A TCP proxy on 127.0.0.1 in front of PostgreSQL, so a test can make the database unreachable
 * (stop: refuse and cut every connection) and bring it back (start) without touching the real server.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  connections = 0;

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async create(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.start();
    return proxy;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = net.createServer((client) => {
        this.connections++;
        const upstream = net.connect(this.target.port, this.target.host);
        for (const s of [client, upstream]) {
          this.sockets.add(s);
          s.on("close", () => this.sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => {
        this.server = server;
        resolve();
      });
    });
  }

  /** Closes the listener (new connections are refused) and cuts every open connection. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise((r) => server.close(r));
  }

  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = "127.0.0.1";
    url.port = String(this.port);
    return url.toString();
  }
}
