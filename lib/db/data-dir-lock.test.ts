import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  acquireLock,
  DataDirBusyError,
  lockFile,
  readLock,
  releaseLock,
  socketFile,
  type DataDirLock,
} from "./data-dir-lock";

const ROOT = path.resolve(__dirname, "../..");
const HOLDER = path.join(__dirname, "data-dir-lock.holder.ts");

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-lock-"));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, "data");
}

interface Holder {
  child: ChildProcess;
  /** The holder's first line: "held <pid>", "busy <pid>" or "error ...". */
  line: Promise<string>;
}

/**
 * A process taking the lock. With `unreaped`, it runs under a parent that never reaps children
 * (sh exec'ing sleep), so once killed it stays a zombie, as under an init that does not reap.
 */
function startHolder(
  dir: string,
  options: { kind?: "abstract" | "file"; at?: number; unreaped?: boolean } = {},
): Holder {
  const args = [HOLDER, dir, options.kind ?? "abstract", String(options.at ?? 0)];
  const child = options.unreaped
    ? spawn("sh", ["-c", `"$0" --import tsx "$@" & exec sleep 300`, process.execPath, ...args], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      })
    : spawn(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((r) => child.once("exit", r));
  cleanup.push(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  const line = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", () => reject(new Error(`holder exited before answering: ${out}`)));
  });
  return { child, line };
}

async function heldBy(holder: Holder): Promise<number> {
  const line = await holder.line;
  expect(line).toMatch(/^held \d+$/);
  return Number(line.split(" ")[1]);
}

function procState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

async function killAndWaitForZombie(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  while (procState(pid) !== "Z") await new Promise((r) => setTimeout(r, 20));
}

describe.each(["abstract", "file"] as const)("data directory lock (%s socket)", (kind) => {
  const socketFileOption = kind === "file";

  it("is refused while a live process holds it, and readLock names that process", async () => {
    const dir = tempDir();
    const holderPid = await heldBy(startHolder(dir, { kind }));
    const error = await acquireLock(dir, "cli", { socketFile: socketFileOption }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirBusyError);
    expect((error as DataDirBusyError).holder).toEqual({ pid: holderPid, role: "server" });
    expect(readLock(dir)).toMatchObject({ pid: holderPid, role: "server", port: 4321 });
    expect(fs.statSync(lockFile(dir)).mode & 0o777).toBe(0o600);
  });

  it("is taken over from a holder killed with SIGKILL that is still a zombie (not reaped)", async () => {
    const dir = tempDir();
    const holderPid = await heldBy(startHolder(dir, { kind, unreaped: true }));
    await killAndWaitForZombie(holderPid);
    // The dead holder's lock file is still there, and kill(pid, 0) still succeeds on a zombie.
    expect((JSON.parse(fs.readFileSync(lockFile(dir), "utf8")) as DataDirLock).pid).toBe(holderPid);
    expect(() => process.kill(holderPid, 0)).not.toThrow();
    if (kind === "file") expect(fs.existsSync(socketFile(dir))).toBe(true);
    expect(readLock(dir)).toBeUndefined();

    // A killed process's leader thread is a zombie a moment before its other threads are gone and its
    // sockets closed: the lock waits for that (bounded), it does not refuse.
    const lock = await acquireLock(dir, "cli", { socketFile: socketFileOption, waitMs: 5_000 });
    cleanup.push(() => releaseLock(dir));
    expect(lock.pid).toBe(process.pid);
    expect(readLock(dir)).toMatchObject({ pid: process.pid, role: "cli" });
  });

  it("lets exactly one of several processes starting at the same moment take a stale directory", async () => {
    const dir = tempDir();
    const dead = await heldBy(startHolder(dir, { kind, unreaped: true }));
    await killAndWaitForZombie(dead);
    const at = Date.now() + 1_500; // after every holder has loaded
    const lines = await Promise.all(Array.from({ length: 4 }, () => startHolder(dir, { kind, at }).line));
    const winners = lines.filter((l) => l.startsWith("held "));
    expect(winners, lines.join(", ")).toHaveLength(1);
    const winner = winners[0].split(" ")[1];
    expect(
      lines.filter((l) => l === `busy ${winner}`),
      lines.join(", "),
    ).toHaveLength(3);
    expect(readLock(dir)?.pid).toBe(Number(winner));
  });

  it("is free again once released, and its lock file is gone", async () => {
    const dir = tempDir();
    await acquireLock(dir, "cli", { socketFile: socketFileOption });
    await releaseLock(dir);
    expect(fs.existsSync(lockFile(dir))).toBe(false);
    const holderPid = await heldBy(startHolder(dir, { kind }));
    expect(readLock(dir)?.pid).toBe(holderPid);
  });
});

describe("readLock", () => {
  it("does not take a recycled pid (same number, another process) for the holder", () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    // A live process that is not the holder: this test's parent, with another start time.
    const stale: DataDirLock = { pid: process.ppid, role: "server", port: 1, adminToken: "x", startTime: "1" };
    fs.writeFileSync(lockFile(dir), JSON.stringify(stale), { mode: 0o600 });
    expect(readLock(dir)).toBeUndefined();
  });

  it("takes over a lock file naming a live but unrelated process", async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    const stale: DataDirLock = { pid: process.ppid, role: "server", port: 1, adminToken: "x" };
    fs.writeFileSync(lockFile(dir), JSON.stringify(stale), { mode: 0o600 });
    const lock = await acquireLock(dir, "cli", { waitMs: 0 });
    cleanup.push(() => releaseLock(dir));
    expect(readLock(dir)).toEqual(lock);
  });
});
