import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, spawnNextServer, waitUntilServing } from "../lib/testing/next-server";
import { startStripeStandIn } from "../lib/payments/testing/stripe-stand-in";
import { startMailbox } from "./mailbox";
import type { E2EState } from "./state";

// Builds (only when no build exists), fills a fresh demo database, serves the production build on
// a free 127.0.0.1 port, and hands the URL and demo keys to the workers through a state file.
// E2E_BASE_URL + E2E_KEYS_FILE (the demo command's JSON) reuse an already running server instead.

const DEMO_CALLS = process.env.E2E_DEMO_CALLS || "3000";

function writeState(state: E2EState): void {
  const file = path.join(os.tmpdir(), `callbook-e2e-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
  process.env.CALLBOOK_E2E_STATE = file; // inherited by the workers
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  fs.mkdirSync("e2e/screenshots", { recursive: true });

  if (process.env.E2E_BASE_URL && process.env.E2E_KEYS_FILE) {
    const demo = JSON.parse(fs.readFileSync(process.env.E2E_KEYS_FILE, "utf8"));
    writeState({ baseURL: process.env.E2E_BASE_URL.replace(/\/$/, ""), keys: demo.keys, people: demo.people });
    return async () => fs.rmSync(process.env.CALLBOOK_E2E_STATE!, { force: true });
  }

  const root = process.cwd();
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NEXT_DIST_DIR: distDir };
  if (!fs.existsSync(path.join(root, distDir, "BUILD_ID"))) {
    const build = spawnSync("npx", ["next", "build"], { stdio: "inherit", env });
    if (build.status !== 0) throw new Error("next build failed");
  }

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "callbook-e2e-"));
  const demo = spawnSync("npm", ["run", "-s", "admin", "--", "demo", "--calls", DEMO_CALLS], {
    env: { ...env, DATA_DIR: dataDir, DATABASE_URL: "" },
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (demo.status !== 0) throw new Error(`demo data failed (exit ${demo.status}):\n${demo.stderr}`);
  const filled = JSON.parse(demo.stdout) as { keys: E2EState["keys"]; people: E2EState["people"] };

  // The server mails (invitations, resets) over SMTP to a local server that keeps every message for the specs.
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), "callbook-e2e-mail-"));
  const mailbox = await startMailbox(mailDir);
  // Payments go to a local stand-in of Stripe's API, whose checkout page posts the signed event back (payments.spec.ts).
  const stripe = await startStripeStandIn();
  const stripeEnv = {
    STRIPE_SECRET_KEY: "sk_test_e2e",
    STRIPE_WEBHOOK_SECRET: "whsec_e2e_secret",
    STRIPE_API_BASE: stripe.url,
  };
  const port = await freePort();
  const logFile = `${dataDir}.log`;
  const child = spawnNextServer({
    port,
    distDir,
    dataDir,
    logFile,
    // The specs sign in as the demo people (e2e/fixtures.ts); the ones about keys with a key (development-only key
    // sign-in). Every spec signs in from this one address, many times a minute as a few people: the sign-in limits
    // (their own tests are lib/people's) would answer 429. Private webhook targets: e2e/alerts.spec.ts's receiver
    // listens on 127.0.0.1.
    env: {
      LOG_REQUESTS: "0",
      PORTAL_KEY_SIGN_IN: "1",
      SIGN_IN_ACCOUNT_PER_MINUTE: "6000",
      SIGN_IN_ACCOUNT_BURST: "6000",
      SIGN_IN_ADDRESS_PER_MINUTE: "6000",
      SIGN_IN_ADDRESS_BURST: "6000",
      SMTP_URL: mailbox.url,
      WEBHOOKS_ALLOW_PRIVATE: "1",
      // How customers who cannot pay by card are told to pay (e2e/payments.spec.ts).
      OPERATOR_CONTACT: "billing@callbook.example",
      ...stripeEnv,
    },
  });
  const baseURL = `http://127.0.0.1:${port}`;
  stripe.webhook = { url: `${baseURL}/payments/stripe/webhook`, secret: stripeEnv.STRIPE_WEBHOOK_SECRET };
  await waitUntilServing(baseURL, child, logFile);
  writeState({ baseURL, keys: filled.keys, people: filled.people, dataDir, mailDir });

  return async () => {
    await mailbox.close();
    await stripe.close();
    fs.rmSync(mailDir, { recursive: true, force: true });
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(logFile, { force: true });
    if (process.env.CALLBOOK_E2E_STATE) fs.rmSync(process.env.CALLBOOK_E2E_STATE, { force: true });
  };
}
