// Serves the production build: `npm start`. PORT (default 3000) is also what the admin CLI uses
// to reach this server while it holds the embedded data directory.
import { spawn } from "node:child_process";

const port = process.env.PORT || "3000";
const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", port, "-H", process.env.HOST || "0.0.0.0"], {
  stdio: "inherit",
  env: { ...process.env, PORT: port, NODE_ENV: "production" },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
