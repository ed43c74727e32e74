#!/usr/bin/env node
// Adds the other platforms' optional native packages (next swc, tailwind oxide, rollup, unrs resolver)
// that npm leaves out of package-lock.json when the registry it resolved against lacks them
// (npm/cli#4828). Without them `npm ci` refuses the lockfile as out of sync. Each entry carries the
// os/cpu/libc that npm uses to skip it on other machines, so Linux never fetches a darwin binary.
// Run after any `npm install` that rewrites the lockfile: `node scripts/complete-lockfile.mjs`.
// `--check` (run by `npm test`) writes nothing and fails when an entry is missing.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "win32", "wasm32"];
const CPU = {
  arm: "arm",
  arm64: "arm64",
  x64: "x64",
  ia32: "ia32",
  loong64: "loong64",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x",
};

// "@rollup/rollup-linux-arm64-musl" -> { os: ["linux"], cpu: ["arm64"], libc: ["musl"] }
function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const osIndex = parts.findIndex((part) => OS.includes(part));
  if (osIndex < 0) return null;
  const os = parts[osIndex];
  if (os === "wasm32") return { cpu: ["wasm32"] };
  const cpu = CPU[parts[osIndex + 1]];
  if (!cpu) return null;
  const rest = parts.slice(osIndex + 2);
  const libc = rest.includes("musl") || rest.includes("musleabihf") ? ["musl"] : os === "linux" ? ["glibc"] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === "" ? "" : `${path}/`;
    if (packages[`${base}node_modules/${dep}`] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[`node_modules/${dep}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added += 1;
  }
}

if (process.argv.includes("--check")) {
  if (added > 0) {
    console.error(
      `complete-lockfile: package-lock.json lacks ${added} platform package entries; run node scripts/complete-lockfile.mjs`,
    );
    process.exit(1);
  }
  console.log("complete-lockfile: every platform's optional native packages are listed");
  process.exit(0);
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform package entries`);
