import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Who holds an embedded data directory. PGlite admits one process per directory. */
export interface DataDirLock {
  pid: number;
  role: "server" | "cli";
  /** Where the server listens, so the CLI can send it admin commands instead of opening the directory. */
  port?: number;
  adminToken: string;
}

export class DataDirBusyError extends Error {
  constructor(
    readonly holder: DataDirLock,
    readonly dir: string,
  ) {
    super(`The data directory ${dir} is in use by ${holder.role} process ${holder.pid}.`);
  }
}

export function lockFile(dir: string): string {
  return path.join(dir, "pglite.lock");
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function readLock(dir: string): DataDirLock | undefined {
  try {
    const lock = JSON.parse(fs.readFileSync(lockFile(dir), "utf8")) as DataDirLock;
    return isAlive(lock.pid) ? lock : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the directory for this process, or throws DataDirBusyError naming the live holder. */
export function acquireLock(dir: string, role: DataDirLock["role"], port?: number): DataDirLock {
  fs.mkdirSync(dir, { recursive: true });
  const file = lockFile(dir);
  const lock: DataDirLock = { pid: process.pid, role, port, adminToken: randomBytes(32).toString("base64url") };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(lock), { flag: "wx", mode: 0o600 });
      process.once("exit", () => releaseLock(dir));
      return lock;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let holder: DataDirLock | undefined;
      try {
        holder = JSON.parse(fs.readFileSync(file, "utf8")) as DataDirLock;
      } catch {
        holder = undefined; // torn write by a crashed process: treat as stale
      }
      if (holder && holder.pid === process.pid) return holder;
      if (holder && isAlive(holder.pid)) throw new DataDirBusyError(holder, dir);
      fs.rmSync(file, { force: true }); // stale: its process is gone (kill -9, crash)
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}

export function releaseLock(dir: string): void {
  try {
    const holder = JSON.parse(fs.readFileSync(lockFile(dir), "utf8")) as DataDirLock;
    if (holder.pid === process.pid) fs.rmSync(lockFile(dir), { force: true });
  } catch {
    // already gone
  }
}
