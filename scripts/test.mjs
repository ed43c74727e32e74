// `npm test`: every check, in order, failing fast. Lint, architecture and types first (cheap), then unit and
// data-layer tests on PGlite and PostgreSQL, then a production build that the HTTP API tests and
// the Playwright suite run against.
import { spawn, spawnSync } from "node:child_process";
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

// The static checks read the sources and nothing else: they run at once (two at a time, the CI machine's cores), their
// output printed in order when each ends. The later steps share the build and the machine, so they run one by one.
const STATIC = 5;
const CONCURRENT = 2;

const only = process.argv[2];
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const results = [];
const started = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);

function finish(name, status) {
  if (status === 0) return;
  console.log(`\n${results.join("\n")}\n\n✖ ${name} failed (${seconds(started)}s in all)`);
  process.exit(status ?? 1);
}

/** Runs a step with its output kept, resolving with its status, output and seconds. */
function runCaptured([cmd, ...args]) {
  return new Promise((resolve) => {
    const since = Date.now();
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    child.on("close", (status) =>
      resolve({ status, output: Buffer.concat(chunks).toString(), seconds: seconds(since) }),
    );
  });
}

const selected = steps.map((step, i) => ({ step, i })).filter(({ step: [name] }) => !only || name.startsWith(only));
const staticSteps = selected.filter(({ i }) => i < STATIC).map(({ step }) => step);
// At most CONCURRENT run at a time (a finished step hands its slot to the next waiting one); reported in order.
let running = 0;
const waiting = [];
const release = () => {
  const next = waiting.shift();
  if (next) next();
  else running--;
};
const limited = async (step) => {
  if (running < CONCURRENT) running++;
  else await new Promise((resolve) => waiting.push(resolve));
  return runCaptured(step[1]).finally(release);
};
const staticRuns = staticSteps.map((step) => ({ step, done: limited(step) }));
for (const { step, done } of staticRuns) {
  const [name, [cmd, ...args]] = step;
  const r = await done;
  console.log(`\n━━ ${name}: ${cmd} ${args.join(" ")}`);
  if (r.output.trim()) process.stdout.write(r.output.endsWith("\n") ? r.output : `${r.output}\n`);
  results.push(`${r.status === 0 ? "✓" : "✖"} ${name} (${r.seconds}s)`);
  finish(name, r.status);
}

for (const { step } of selected.filter(({ i }) => i >= STATIC)) {
  const [name, [cmd, ...args]] = step;
  console.log(`\n━━ ${name}: ${cmd} ${args.join(" ")}`);
  const since = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env });
  results.push(`${r.status === 0 ? "✓" : "✖"} ${name} (${seconds(since)}s)`);
  finish(name, r.status);
}
console.log(`\n${results.join("\n")}\n\nall checks passed (${seconds(started)}s in all)`);
