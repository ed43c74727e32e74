import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { processSingleton } from "@/lib/runtime/process-singleton";

/** Who holds an embedded data directory. PGlite admits one process per directory. */
export interface DataDirLock {
  pid: number;
  role: "server" | "cli";
  /** Where the server listens, so the CLI can send it admin commands instead of opening the directory. */
  port?: number;
  adminToken: string;
  /** Start time of the holder (Linux /proc clock ticks), so a recycled pid is not taken for the holder. */
  startTime?: string;
}

export type LockHolder = Pick<DataDirLock, "pid" | "role">;

export class DataDirBusyError extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly dir: string,
  ) {
    super(`The data directory ${dir} is in use by ${holder.role} process ${holder.pid}.`);
  }
}

export interface AcquireOptions {
  port?: number;
  /**
   * How long to keep trying while the name is bound but its holder does not answer: a process
   * killed a moment ago keeps its socket until the kernel has torn it down. Default 10 s.
   */
  waitMs?: number;
  /** Tests: use a socket file in the directory even on Linux (the fallback of other systems). */
  socketFile?: boolean;
}

/**
 * The lock is a listening unix socket that the kernel releases when its process dies, however it
 * dies (kill -9 included; a zombie holds no sockets). Binding it is atomic, so of two starting
 * processes exactly one wins. On Linux it lives in the abstract namespace, named after the
 * directory's device, inode and birth time (no file that could go stale; a moved directory keeps its lock);
 * elsewhere it is the file DATA_DIR/pglite.sock, bound and removed under one guard (one process at a time), removed
 * only when nobody answers on it.
 *
 * pglite.lock (mode 0600) only tells who holds the directory: pid, role, and for the server its
 * port and admin token, which the CLI uses to send commands through the server.
 */
export function lockFile(dir: string): string {
  return path.join(dir, "pglite.lock");
}

export function socketFile(dir: string): string {
  return path.join(dir, "pglite.sock");
}

function lockAddress(dir: string, useFile: boolean): string {
  if (useFile) return socketFile(dir);
  const st = fs.statSync(dir);
  // Birth time too: a deleted directory's inode number is soon given to a new one.
  const id = createHash("sha256").update(`${st.dev}:${st.ino}:${st.birthtimeMs}`).digest("hex").slice(0, 32);
  return `\0callbook-pglite-${id}`;
}

const useAbstract = process.platform === "linux";

/** Index in procStat() of the start time (field 22 of /proc/<pid>/stat). */
const START_TIME = 19;

/** The fields after the command name of /proc/<pid>/stat (state first); null: no such process; undefined: no /proc. */
function procStat(pid: number): string[] | null | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return fs.existsSync("/proc/self/stat") ? null : undefined;
  }
}

/**
 * Whether the process recorded in a lock is still the one running: present, not a zombie (killed
 * but not yet reaped by its parent), and started when the lock says (not a recycled pid).
 */
function holderAlive(lock: Pick<DataDirLock, "pid" | "startTime">): boolean {
  const stat = procStat(lock.pid);
  if (stat === null) return false;
  if (stat === undefined) {
    try {
      process.kill(lock.pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  if (stat[0] === "Z" || stat[0] === "X" || stat[0] === "x") return false;
  return lock.startTime === undefined || stat[START_TIME] === lock.startTime;
}

function readLockFile(dir: string): DataDirLock | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockFile(dir), "utf8")) as DataDirLock;
  } catch {
    return undefined; // absent, or torn by a crash mid-write
  }
}

/** The live holder of the directory as its lock file tells, for the CLI; undefined when none. */
export function readLock(dir: string): DataDirLock | undefined {
  const lock = readLockFile(dir);
  return lock && holderAlive(lock) ? lock : undefined;
}

interface Held {
  lock: DataDirLock;
  server: net.Server;
  address: string;
}

// Per process, not per module copy: `next dev` may load this module again in the same process, which already holds
// the lock.
const held = processSingleton("data-dir-locks", () => new Map<string, Held>());

function listen(address: string, reply: string): Promise<net.Server | "in-use"> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => {
      socket.on("error", () => undefined);
      socket.end(reply);
    });
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve("in-use") : reject(e)));
    server.listen({ path: address, exclusive: true }, () => {
      server.unref(); // the lock must not keep a finished CLI alive
      resolve(server);
    });
  });
}

/**
 * Asks whoever listens on the lock who it is: a holder, "refused" (the socket file or name is there but nobody
 * listens), "absent" (no socket file: someone removed it and may be binding it right now), or "silent".
 */
function ping(address: string, timeoutMs: number): Promise<LockHolder | "refused" | "absent" | "silent"> {
  return new Promise((resolve) => {
    let data = "";
    const socket = net.connect({ path: address });
    const done = (v: LockHolder | "refused" | "absent" | "silent") => {
      socket.destroy();
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => done("silent"), timeoutMs);
    socket.on("data", (chunk) => (data += chunk.toString("utf8")));
    socket.on("end", () => {
      try {
        done(JSON.parse(data) as LockHolder);
      } catch {
        done("silent");
      }
    });
    socket.on("error", (e: NodeJS.ErrnoException) =>
      done(e.code === "ECONNREFUSED" ? "refused" : e.code === "ENOENT" ? "absent" : "silent"),
    );
  });
}

/**
 * Runs `take` holding the takeover guard of a socket file (a directory made with mkdir, which one process at a time
 * wins): every bind and every removal of the file happen under it. So a file found refusing under the guard is dead,
 * never a socket another process has bound but not yet listens on (bind and listen are two system calls), and what is
 * removed is always the file found dead. "contended": another process holds the guard; try again.
 */
async function underTakeoverGuard<T>(address: string, take: () => Promise<T>): Promise<T | "contended"> {
  const guard = `${address}.takeover`;
  try {
    fs.mkdirSync(guard, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    // A holder keeps the guard for a ping and a bind at most; an older guard is left by a process that died holding it.
    const age = Date.now() - (fs.statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 5_000) fs.rmSync(guard, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 20));
    return "contended";
  }
  try {
    return await take();
  } finally {
    fs.rmSync(guard, { recursive: true, force: true });
  }
}

type Attempt = net.Server | LockHolder | "refused" | "absent" | "silent";

/** One try at the lock: bind it, or ask who holds it; a dead socket file (only under the guard) is replaced. */
async function attemptLock(address: string, reply: string, isFile: boolean): Promise<Attempt> {
  const server = await listen(address, reply);
  if (server !== "in-use") return server;
  const holder = await ping(address, 1_000);
  if (holder !== "refused" || !isFile) return holder;
  fs.rmSync(address, { force: true }); // left by a dead process: only an answering holder is alive
  const retried = await listen(address, reply);
  return retried === "in-use" ? "silent" : retried;
}

function writeLockFile(dir: string, lock: DataDirLock): void {
  const tmp = `${lockFile(dir)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(lock), { mode: 0o600 });
  fs.renameSync(tmp, lockFile(dir)); // atomic: a reader sees the old holder or the new one
}

/** Takes the directory for this process, or throws DataDirBusyError naming the live holder. */
export async function acquireLock(
  dir: string,
  role: DataDirLock["role"],
  options: AcquireOptions = {},
): Promise<DataDirLock> {
  const key = path.resolve(dir);
  const mine = held.get(key);
  if (mine) return mine.lock;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const address = lockAddress(dir, options.socketFile ?? !useAbstract);
  const lock: DataDirLock = {
    pid: process.pid,
    role,
    port: options.port,
    adminToken: randomBytes(32).toString("base64url"),
    startTime: procStat(process.pid)?.[START_TIME],
  };
  const reply = JSON.stringify({ pid: lock.pid, role: lock.role } satisfies LockHolder);
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  const isFile = !address.startsWith("\0");
  for (;;) {
    const attempt = isFile
      ? await underTakeoverGuard(address, () => attemptLock(address, reply, true))
      : await attemptLock(address, reply, false);
    if (attempt === "contended") continue;
    if (attempt instanceof net.Server) {
      held.set(key, { lock, server: attempt, address });
      writeLockFile(dir, lock);
      process.once("exit", () => releaseLockFile(dir, lock.pid));
      return lock;
    }
    const holder = attempt;
    if (holder === "absent") continue; // released a moment ago: try to bind it
    if (typeof holder === "object") throw new DataDirBusyError(holder, dir);
    // Bound but silent or refusing: its process is being torn down (or too busy to answer). Wait for the kernel.
    if (Date.now() >= deadline) {
      const file = readLockFile(dir);
      throw new DataDirBusyError(file ?? { pid: 0, role: "server" }, dir);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function releaseLockFile(dir: string, pid: number): void {
  if (readLockFile(dir)?.pid === pid) fs.rmSync(lockFile(dir), { force: true });
}

export async function releaseLock(dir: string): Promise<void> {
  const key = path.resolve(dir);
  const mine = held.get(key);
  if (!mine) return;
  held.delete(key);
  releaseLockFile(dir, process.pid);
  await new Promise((r) => mine.server.close(r)); // also unlinks a socket file
}
