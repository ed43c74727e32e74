import fs from "node:fs";
import {
  databaseUrl,
  dataDir,
  invoiceRunIntervalMs,
  invoicesWorkerEnabled,
  qualityIntervalMs,
  port as portFromEnv,
  publicOrigin,
  stripeSettings,
  trustedProxies,
  webhooksWorkerEnabled,
  exportsWorkerEnabled,
} from "@/lib/config/env";
import { securePrivateDir } from "@/lib/config/private-dir";
import { getDbHandle, type DbHandle } from "@/lib/db/client";
import { installHttpEdge } from "./http-edge";
import { startWebhookWorker } from "@/lib/alerts/delivery";
import { deleteExpiredExports, startExportWorker } from "@/lib/exports/run-exports";
import { deleteExpiredIdempotencyKeys } from "@/lib/idempotency/idempotent-request";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { gatherMissingStatistics } from "@/lib/db/planner-statistics";
import { startInvoiceWorker } from "@/lib/invoices/invoice-worker";
import { startMailWorker } from "@/lib/mail/outbox";
import { mailOrigin } from "@/lib/people/mail-origin";
import { startQualityWorker } from "@/lib/quality/evaluate-quality";
import { startPeriodicTask } from "@/lib/runtime/periodic-task";

const RETRY_OPEN_MS = 2_000;

function logLine(stream: NodeJS.WriteStream, fields: Record<string, unknown>): void {
  stream.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}

/**
 * Runs once when the Next server process starts: opens the database (taking the embedded data
 * directory's lock and recording the port for the admin channel) and applies migrations, so the
 * first request does not pay for it and a misconfiguration fails loudly at start.
 */
async function bootServer(): Promise<void> {
  // Read now so that a malformed TRUSTED_PROXIES or PUBLIC_BASE_URL stops the start, not a request.
  trustedProxies();
  if (!publicOrigin()) {
    // Mailed links (password resets, invitations, email confirmation) are never taken from a request's Host.
    logLine(process.stderr, {
      event: "PUBLIC_BASE_URL is not set: mailed links point at this machine",
      mailLinks: mailOrigin(),
      hint: "set PUBLIC_BASE_URL to the portal's address as people open it (https://billing.example.com)",
    });
  }
  installHttpEdge();
  // The CLI reaches a running embedded server through the admin channel's loopback-only listener;
  // the lock records that listener's port (lib/admin/admin-listener.ts).
  // Loaded only where it runs: the admin commands (demo data, people, imports) are no part of a PostgreSQL server.
  const admin = databaseUrl() ? undefined : await (await import("@/lib/admin/admin-listener")).listenAdminChannel();
  const port = admin?.port ?? portFromEnv();
  // On PostgreSQL DATA_DIR still holds the generated secrets; openPglite secures it on the embedded engine.
  if (databaseUrl() && fs.existsSync(dataDir())) securePrivateDir(dataDir());
  await openAndStartWorkers(port);
}

/**
 * Opens the database, then starts the webhook worker. PostgreSQL not reachable (it may start after
 * us): requests answer 503 problem+json and open it themselves once it is back; this keeps trying in
 * the background so the worker starts too. Any other failure, at start or on a later try, is fatal.
 */
async function openAndStartWorkers(port: number, waiting = false): Promise<void> {
  let handle: DbHandle;
  try {
    handle = await getDbHandle({ role: "server", port });
  } catch (e) {
    if (!databaseUrl() || !isDatabaseUnavailable(e)) throw e;
    if (!waiting)
      logLine(process.stderr, {
        event: "database unreachable at start, answering 503 until it is",
        error: (e as Error).message,
      });
    setTimeout(() => openAndStartWorkers(port, true).catch(exitOnOpenFailure), RETRY_OPEN_MS).unref();
    return;
  }
  logLine(process.stdout, { event: "database ready", engine: handle.engine });
  // Balance alert webhooks: every server process drains the outbox (leases keep processes from doubling up).
  if (webhooksWorkerEnabled()) startWebhookWorker(handle.db);
  // The invoice run (README "Invoices"): every server process, side by side (each document under its group's lock).
  if (invoicesWorkerEnabled()) startInvoiceWorker(handle.db, invoiceRunIntervalMs());
  // Background exports: every server process takes due jobs (a lease keeps one job in one process at a time).
  if (exportsWorkerEnabled()) startExportWorker(handle.db);
  // Mail written by transactions (issued invoices, failed auto-recharges): every process drains the outbox (leases).
  // The invoice PDF renderer (pdf-lib) is loaded with the first attachment sent, not at start.
  startMailWorker(handle.db, {
    attachments: async (reference) =>
      (await import("@/lib/invoices/invoice-mail-attachments")).invoiceAttachments(handle.db, reference),
  });
  // Auto-recharge charges (README "Payments"): with a configured provider, every process (leases keep them apart).
  // The provider's SDK is loaded only when one is configured.
  if (stripeSettings()) await startAutoRecharge(handle.db);
  // Quality alerts (docs/contract.md "Quality windows and alerts"): every process judges the windows; each crossing
  // fires once (a conditional UPDATE in the event's transaction). 0 turns it off in this process.
  if (qualityIntervalMs() > 0) startQualityWorker(handle.db, qualityIntervalMs());
  startHousekeeping(handle.db);
  // Statistics never gathered (a restored or upgraded database, rows loaded by hand): in the background, requests are
  // answered meanwhile. The line says when (the bench waits for it before measuring).
  const started = performance.now();
  void gatherMissingStatistics(handle.db).then((analyzed) =>
    logLine(process.stdout, {
      event: "planner statistics ready",
      analyzed,
      ms: Math.round(performance.now() - started),
    }),
  );
}

async function startAutoRecharge(db: DbHandle["db"]): Promise<void> {
  const [{ configuredPaymentProvider }, { startAutoRechargeWorker }] = await Promise.all([
    import("@/lib/payments/configured-provider"),
    import("@/lib/payments/auto-recharge-worker"),
  ]);
  const payments = configuredPaymentProvider();
  if (payments) startAutoRechargeWorker(db, payments);
}

const HOUSEKEEPING_MS = 10 * 60_000;

/**
 * Deletes what has expired: idempotency keys past 24 hours (already ignored) and exports past their `expiresAt` (files
 * included). Every process does it; the deletes are idempotent. A failed round is retried at the next.
 */
function startHousekeeping(db: DbHandle["db"]): void {
  startPeriodicTask(
    "housekeeping failed",
    () => Promise.all([deleteExpiredIdempotencyKeys(db), deleteExpiredExports(db)]),
    HOUSEKEEPING_MS,
  );
}

function exitOnOpenFailure(e: unknown): never {
  logLine(process.stderr, { event: "cannot open the database, exiting", error: (e as Error).message });
  process.exit(1);
}

/**
 * bootServer, or exit 1 with the reason on stderr. Next memoises a failed instrumentation hook and
 * would answer every request with a bare 500 for the life of the process; a server that cannot
 * open its database (a held or unusable data directory, a failing migration) must stop, so that its
 * supervisor (or the operator) sees why. An unreachable PostgreSQL is not that: it is waited for.
 */
export async function bootServerOrExit(): Promise<void> {
  await bootServer().catch(exitOnOpenFailure);
}
