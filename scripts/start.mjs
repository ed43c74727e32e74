// Serves the production build: `npm start`. PORT (default 3000) is also what the admin CLI uses
// to reach this server while it holds the embedded data directory.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { runOnSupportedNode } from "./node-runtime.mjs";

// Never on an end-of-life Node.js (scripts/node-runtime.mjs).
runOnSupportedNode(import.meta.url);

// V8 flags of the server process (scripts/server-node-flags.json, also used by the bench's server):
// --heap-growing-percent=100 lets the old generation grow at most 2x its live size between full
// collections instead of up to 4x. Measured (`npm run bench`, 500k-prefix card, cases 3-5 on
// PostgreSQL): peak RSS 335 -> 234 MiB for about the same CPU per request (GET /v1/calls?pageSize=1000
// 27.9 -> 29.0 ms); --optimize-for-size reached 150 MiB but doubled the CPU per request.
// --max-semi-space-size=16 caps the young generation, which Node 24 sizes larger by default: ingest peak RSS
// 287 -> 200 MiB for the same server CPU per call (`bench/ingest-fresh.ts`, README "Server RSS").
const nodeFlags = JSON.parse(fs.readFileSync(new URL("./server-node-flags.json", import.meta.url), "utf8"));

const port = process.env.PORT || "3000";
const child = spawn(
  process.execPath,
  [...nodeFlags, "node_modules/next/dist/bin/next", "start", "-p", port, "-H", process.env.HOST || "0.0.0.0"],
  {
    stdio: "inherit",
    env: { ...process.env, PORT: port, NODE_ENV: "production" },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
