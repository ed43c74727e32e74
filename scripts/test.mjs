// `npm test`: every check, in order, failing fast. Lint, architecture and types first (cheap), then unit and
// data-layer tests on PGlite and PostgreSQL, then a production build that the HTTP API tests and
// the Playwright suite run against.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { runOnSupportedNode } from "./node-runtime.mjs";

// Never on an end-of-life Node.js (scripts/node-runtime.mjs).
runOnSupportedNode(import.meta.url);

// Every folder of our code, for the architecture check.
const SOURCES = ["app", "components", "lib", "cli", "bench", "tests", "e2e", "instrumentation.ts", "proxy.ts"];

const steps = [
  ["lockfile (npm ci on every platform)", ["node", "scripts/complete-lockfile.mjs", "--check"]],
  ["format (prettier --check; `npm run format` writes)", ["npx", "prettier", "--check", ".", "--log-level=warn"]],
  ["lint", ["npx", "eslint", ".", "--max-warnings=0"]],
  [
    "architecture (dependency-cruiser: layers, no cycles; .dependency-cruiser.cjs)",
    ["npx", "depcruise", "--config", ".dependency-cruiser.cjs", "--output-type", "err", ...SOURCES],
  ],
  ["typecheck", ["npx", "tsc", "--noEmit"]],
  ["unit + data layer (vitest, PGlite and PostgreSQL)", ["npx", "vitest", "run", "--project", "unit"]],
  ["production build", ["npx", "next", "build"]],
];
if (fs.existsSync("tests/api/global-setup.ts"))
  steps.push(["HTTP API (vitest, PGlite and PostgreSQL)", ["npx", "vitest", "run", "--project", "api"]]);
if (fs.existsSync("tests/reliability"))
  steps.push([
    "reliability (vitest: fuzzing, kill -9, connection loss, soak, sessions)",
    ["npx", "vitest", "run", "--project", "reliability"],
  ]);
if (fs.readdirSync("e2e").some((f) => f.endsWith(".spec.ts")))
  steps.push(["portal e2e (Playwright, Chromium)", ["npx", "playwright", "test"]]);

const only = process.argv[2];
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const results = [];
for (const [name, [cmd, ...args]] of steps) {
  if (only && !name.startsWith(only)) continue;
  console.log(`\n━━ ${name}: ${cmd} ${args.join(" ")}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  results.push(`${r.status === 0 ? "✓" : "✖"} ${name} (${seconds}s)`);
  if (r.status !== 0) {
    console.log(`\n${results.join("\n")}\n\n✖ ${name} failed`);
    process.exit(r.status ?? 1);
  }
}
console.log(`\n${results.join("\n")}\n\nall checks passed`);
