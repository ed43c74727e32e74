// One command from a fresh clone to a running product on the embedded database:
// installs what is missing, builds when the sources changed, fills demo data on first run,
// prints the demo keys and serves the portal and API on http://localhost:$PORT.
import { execSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { runOnSupportedNode } from "./node-runtime.mjs";

// Never on an end-of-life Node.js (scripts/node-runtime.mjs).
runOnSupportedNode(import.meta.url);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const dataDir = path.resolve(process.env.DATA_DIR || "./data");
const keysFile = path.join(dataDir, "demo-keys.json");

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(" ")} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
  return r;
}

function step(text) {
  console.log(`\n▸ ${text}`);
}

if (!fs.existsSync("node_modules/.package-lock.json") && !fs.existsSync("node_modules/next")) {
  step("Installing dependencies");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

const buildId = ".next/BUILD_ID";
const sources = ["app", "components", "lib", "public"].filter((d) => fs.existsSync(d));
const stale =
  !fs.existsSync(buildId) ||
  Math.max(...sources.map(newestMtime), fs.statSync("package.json").mtimeMs, fs.statSync("next.config.mjs").mtimeMs) >
    fs.statSync(buildId).mtimeMs;
if (stale) {
  step("Building the app (next build)");
  run("npm", ["run", "build"]);
}

if (!fs.existsSync(keysFile)) {
  step("Filling the demo database (first run)");
  const r = spawnSync("npm", ["run", "-s", "admin", "--", "demo"], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  if (r.status !== 0) {
    console.error("✖ demo data could not be created");
    process.exit(r.status ?? 1);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  // Demo only: the secrets are kept so the next start can print them again.
  fs.writeFileSync(keysFile, r.stdout, { mode: 0o600 });
}

const port = process.env.PORT || "3000";
try {
  const demo = JSON.parse(fs.readFileSync(keysFile, "utf8"));
  // Accounts by name, the id after it (what the API takes); a keys file of an older demo has the groups too.
  const groups = new Map((demo.groups ?? []).map((g) => [g.id, g.name]));
  const named = (id) => (groups.has(id) ? `${groups.get(id)} (${id})` : id);
  step("Demo API keys (also in " + path.relative(root, keysFile) + ")");
  for (const [name, k] of Object.entries(demo.keys ?? {}))
    console.log(
      `  ${name.padEnd(12)} ${k.key}  ${k.scopes.join(",")}${k.billingGroupId ? `  account ${named(k.billingGroupId)}` : "  platform"}`,
    );
  step("Demo people: sign in to the portal with these");
  for (const [name, p] of Object.entries(demo.people ?? {}))
    console.log(
      `  ${name.padEnd(12)} ${p.email.padEnd(22)} ${p.password}  ${p.role} of ${p.organization === "platform" ? "the platform" : named(p.organization)}`,
    );
} catch {
  // keys file unreadable: the product still runs
}
step(`Serving on http://localhost:${port}  (portal: sign in as a person above; API: /v1 with a key, docs: /docs)`);
// The demo has no card payments: its customers are shown how to pay through this contact (README OPERATOR_CONTACT).
const contact = process.env.OPERATOR_CONTACT ?? "billing@callbook.example (demo operator)";
execSync("node scripts/start.mjs", {
  stdio: "inherit",
  env: { ...process.env, PORT: port, OPERATOR_CONTACT: contact },
});
