import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { openDatabase, type Db } from "@/lib/db/client";
import { startStripeStandIn } from "@/lib/payments/testing/stripe-stand-in";
import { createTestDatabase, type Engine } from "@/lib/testing/engines";
import { freePort, productionDistDir, spawnNextServer, waitUntilServing } from "@/lib/testing/next-server";
import { seedFixtures, type SeededData } from "./fixtures";

/**
 * Starts the production build twice, on PGlite and on PostgreSQL, each seeded with the same
 * fixtures, and hands base URLs and keys to the tests (`inject("apiServers")`). `npm test` runs
 * `next build` just before; NEXT_DIST_DIR selects another build folder.
 */
export interface ApiServer extends SeededData {
  engine: Engine;
  baseUrl: string;
  /** The server's stdout (one JSON line per request). */
  logFile: string;
  /** PostgreSQL only: the server's database, for tests that need to look underneath. */
  databaseUrl?: string;
  /** The server's data directory: the admin CLI reaches a PGlite server through it (its admin channel). */
  dataDir: string;
}

/** A third, small server with a tight rate limit (RATE_LIMIT_RPS=1, burst 3) for the 429 row. */
export interface RateLimitedServer {
  baseUrl: string;
  key: string;
}

/**
 * Small PGlite servers for where a request comes from (docs/contract.md §6): `proxied` trusts 127.0.0.2 as its proxy
 * (TRUSTED_PROXIES; a test sends from that address to be the proxy, from 127.0.0.1 or others to be a client) and
 * keeps its limit of failed authentications (burst 10, one more a minute: no refill within a test); `public` has
 * PUBLIC_BASE_URL=https://billing.example.test. Each holds one group with a rate for 44 and a key that may sign in
 * and authorize calls (`key`).
 */
export interface EdgeServer {
  baseUrl: string;
  key: string;
  groupId: string;
}
export const PROXY_ADDRESS = "127.0.0.2";
export const PUBLIC_BASE_URL = "https://billing.example.test";

declare module "vitest" {
  export interface ProvidedContext {
    apiServers: ApiServer[];
    rateLimitedServer: RateLimitedServer;
    /** The main servers' Stripe webhook secret (payments.test.ts signs events with it). */
    stripeWebhookSecret: string;
    edgeServers: { proxied: EdgeServer; public: EdgeServer };
  }
}

interface Running {
  server: ApiServer;
  child: ChildProcess;
  cleanup: () => Promise<void>;
}

interface ServerOptions {
  seed: (db: Db) => Promise<SeededData>;
  env?: Record<string, string>;
}

async function startServer(engine: Engine, distDir: string, options: ServerOptions): Promise<Running> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cb-api-${engine}-`));
  const dataDir = path.join(workDir, "data");
  let databaseUrl: string | undefined;
  let dropDatabase = async () => undefined as void;
  if (engine === "postgres") {
    const created = await createTestDatabase();
    databaseUrl = created.url;
    dropDatabase = created.drop;
  }

  // Seed with the server not running: PGlite admits one process per data directory.
  const handle = await openDatabase(databaseUrl ? { url: databaseUrl } : { dir: dataDir, role: "cli" });
  let seeded: SeededData;
  try {
    seeded = await options.seed(handle.db);
  } finally {
    await handle.close();
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFile = path.join(workDir, "server.log");
  const child = spawnNextServer({
    port,
    distDir,
    dataDir,
    databaseUrl,
    logFile,
    // The tests send many refused credentials from 127.0.0.1: limited on the edge servers, not here.
    // Key sign-in is development-only: on here for the older tests of sessions, off on the rate-limited server.
    env: {
      RATE_LIMIT_RPS: "0",
      AUTH_FAILURES_PER_MINUTE: "0",
      LOG_REQUESTS: "1",
      PORTAL_KEY_SIGN_IN: "1",
      ...options.env,
    },
  });

  const cleanup = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await dropDatabase().catch(() => undefined);
    if (!process.env.KEEP_API_TEST_DIRS) fs.rmSync(workDir, { recursive: true, force: true });
  };

  try {
    await waitUntilServing(baseUrl, child, logFile);
  } catch (e) {
    await cleanup();
    throw e;
  }
  return { server: { ...seeded, engine, baseUrl, logFile, databaseUrl, dataDir }, child, cleanup };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const distDir = productionDistDir();
  const running: Running[] = [];
  // The main servers' payments go to a local stand-in of Stripe's API (lib/payments/testing/stripe-stand-in.ts).
  const stripe = await startStripeStandIn();
  const stripeEnv = {
    STRIPE_SECRET_KEY: "sk_test_api",
    STRIPE_WEBHOOK_SECRET: "whsec_api_tests",
    STRIPE_API_BASE: stripe.url,
  };
  const teardown = async () => {
    await Promise.all(running.map((r) => r.cleanup()));
    await stripe.close();
  };
  try {
    // One after the other: two cold starts at once on a small machine only slow both down.
    for (const engine of ["pglite", "postgres"] as const)
      running.push(
        // Quality rounds (lib/quality/evaluate-quality.ts) every 300 ms: tests/api/quality.test.ts waits for one.
        await startServer(engine, distDir, { seed: seedFixtures, env: { ...stripeEnv, QUALITY_INTERVAL_MS: "300" } }),
      );
    let limitedKey = "";
    const limited = await startServer("pglite", distDir, {
      env: { RATE_LIMIT_RPS: "1", RATE_LIMIT_BURST: "3", PORTAL_KEY_SIGN_IN: "" },
      seed: async (db) => {
        const group = await createBillingGroup(db, { name: "Limited", currency: "USD" });
        limitedKey = (await createApiKey(db, { scopes: ["calls:read"], billingGroupId: group.id })).key;
        return {} as SeededData;
      },
    });
    running.push(limited);
    project.provide("rateLimitedServer", { baseUrl: limited.server.baseUrl, key: limitedKey });
    const edge = async (env: Record<string, string>): Promise<EdgeServer> => {
      const seeded = { key: "", groupId: "" };
      const started = await startServer("pglite", distDir, {
        env,
        seed: async (db) => {
          const group = await createBillingGroup(db, {
            name: "Edge",
            currency: "USD",
            openingBalanceMicros: 1_000_000_000n,
          });
          await importSellRates(db, group.id, [
            rateRowSchema.parse({ prefix: "44", rate: "0.05", increment: "60/60" }),
          ]);
          seeded.key = (await createApiKey(db, { scopes: ["calls:read", "cdrs:write"], billingGroupId: group.id })).key;
          seeded.groupId = group.id;
          return {} as SeededData;
        },
      });
      running.push(started);
      return { baseUrl: started.server.baseUrl, ...seeded };
    };
    project.provide("edgeServers", {
      proxied: await edge({
        TRUSTED_PROXIES: PROXY_ADDRESS,
        AUTH_FAILURES_PER_MINUTE: "1",
        AUTH_FAILURE_BURST: "10",
      }),
      public: await edge({ PUBLIC_BASE_URL }),
    });
  } catch (e) {
    await teardown();
    throw e;
  }
  project.provide("stripeWebhookSecret", stripeEnv.STRIPE_WEBHOOK_SECRET);
  project.provide(
    "apiServers",
    running.slice(0, 2).map((r) => r.server),
  );
  return teardown;
}
