import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { securePrivateDir } from "./private-dir";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-perm-"));
  dirs.push(dir);
  return dir;
}

/** Every entry under dir (itself included) whose mode has group or other bits. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if ((st.mode & 0o077) !== 0) out.push(`${path.relative(dir, p) || "."} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return out;
}

describe("data directory permissions", () => {
  it("tightens an existing 0755 directory with 0666 files to owner-only, keeping the owner's bits", () => {
    const dir = path.join(tempDir(), "data");
    fs.mkdirSync(path.join(dir, "pgdata/base"), { recursive: true });
    fs.writeFileSync(path.join(dir, "cursor-secret"), "s");
    fs.writeFileSync(path.join(dir, "pgdata/base/1"), "x");
    for (const p of ["", "pgdata", "pgdata/base"]) fs.chmodSync(path.join(dir, p), 0o755);
    for (const p of ["cursor-secret", "pgdata/base/1"]) fs.chmodSync(path.join(dir, p), 0o666);

    expect(securePrivateDir(dir)).toEqual({ fixed: 5, failed: 0 });
    expect(openToOthers(dir)).toEqual([]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, "pgdata/base/1")).mode & 0o777).toBe(0o600);
    expect(securePrivateDir(dir)).toEqual({ fixed: 0, failed: 0 });
  });

  it("creates the embedded database's directory 0700 and no file in it is readable by others", async () => {
    const dir = path.join(tempDir(), "data");
    const handle = await openDatabase({ dir, role: "cli" });
    await handle.close();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.join(dir, "pgdata")).length).toBeGreaterThan(5);
    expect(openToOthers(dir)).toEqual([]);
  });

  it("fixes a database directory left world-readable by an older version when it opens it", async () => {
    const dir = path.join(tempDir(), "data");
    await (await openDatabase({ dir, role: "cli" })).close();
    const loosen = (p: string) => {
      const st = fs.lstatSync(p);
      fs.chmodSync(p, st.isDirectory() ? 0o755 : 0o666);
      if (st.isDirectory()) for (const name of fs.readdirSync(p)) loosen(path.join(p, name));
    };
    loosen(dir);
    expect(openToOthers(dir).length).toBeGreaterThan(5);
    await (await openDatabase({ dir, role: "cli" })).close();
    expect(openToOthers(dir)).toEqual([]);
  });
});
