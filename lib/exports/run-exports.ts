import { sql } from "drizzle-orm";
import { readSubtree } from "@/lib/auth/find-key";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { csvColumns, csvRows } from "@/lib/calls/export-csv";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";
import { queryRows, type Db } from "@/lib/db/client";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { summarizeUsage } from "@/lib/usage/summarize-usage";
import type { ExportRow } from "./export-row";
import type { ExportFilters } from "./schemas";
import { exportCallFilters } from "./start-export";

// The background side of POST /v1/exports (README "Background exports"). Every app process runs a worker; a job is
// claimed with a lease under a row lock (SKIP LOCKED, as the webhook deliverer claims), so exactly one process writes a
// file at a time. Each page of calls is written as one chunk together with the job's position (the listing's cursor)
// and a renewed lease, in one transaction fenced by the claim's attempt number: a process that dies mid-file leaves a
// lease that lapses, and the next claim resumes after the last written page. A job claimed MAX_ATTEMPTS times fails.

export interface ExportWorkerOptions {
  /** How long a claim stays exclusive without a page written. */
  leaseMs: number;
  /** Calls per chunk (one listing page). */
  pageSize: number;
  /** Claims of one job before it is marked failed. */
  maxAttempts: number;
  pollMs: number;
}

export const EXPORT_WORKER_DEFAULTS: ExportWorkerOptions = {
  leaseMs: 60_000,
  pageSize: 1_000,
  maxAttempts: 3,
  pollMs: 1_000,
};

/**
 * The principal the export was asked by, as far as the listing needs it: its reach (its group's subtree as it stands
 * when the file is written) and whether it sees costs.
 */
async function principalOf(db: Db, row: ExportRow): Promise<Principal> {
  const scopes: Scope[] = row.with_cost ? ["calls:read", "calls:read_cost"] : ["calls:read"];
  return {
    keyId: row.key_id,
    scopes: new Set(scopes),
    billingGroupId: row.billing_group_id,
    ...(row.billing_group_id === null ? {} : { reachGroupIds: await readSubtree(db, row.billing_group_id) }),
    rateCardVersion: null,
    via: "api_key",
  };
}

/** Claims the oldest queued job, or a running one whose lease lapsed; null when none is due. */
async function claimExport(db: Db, options: ExportWorkerOptions): Promise<ExportRow | null> {
  const [row] = await queryRows<ExportRow>(
    db,
    sql`UPDATE exports SET status = 'running', attempts = attempts + 1,
          leased_until = now() + ${`${options.leaseMs} milliseconds`}::interval
        WHERE id = (SELECT id FROM exports
                    WHERE status IN ('queued', 'running') AND (leased_until IS NULL OR leased_until < now())
                    ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
  );
  return row ?? null;
}

async function failExport(db: Db, row: ExportRow, error: string): Promise<void> {
  await db.execute(
    sql`UPDATE exports SET status = 'failed', error = ${error}, completed_at = now(), leased_until = NULL
        WHERE id = ${row.id} AND attempts = ${row.attempts}`,
  );
}

/** How many calls the filters match now, from the usage rollups (cheap); null when it cannot be told. */
async function estimateRows(db: Db, principal: Principal, filters: ExportFilters): Promise<number | null> {
  try {
    const callFilters = exportCallFilters(filters);
    const report = await summarizeUsage(
      db,
      principal,
      { ...callFilters, account: callFilters.billingGroupId },
      { groupBy: "day" },
    );
    return report.totals.reduce((sum, total) => sum + total.calls, 0);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    return null;
  }
}

/**
 * Writes one claimed job's file from where it stands to the end. Answers false when the claim was lost (the lease
 * lapsed and another process took the job over): this one then stops writing.
 */
async function writeExport(db: Db, claimed: ExportRow, options: ExportWorkerOptions): Promise<boolean> {
  const principal = await principalOf(db, claimed);
  const filters = JSON.parse(claimed.filters) as ExportFilters;
  const columns = csvColumns(principal);
  const lease = `${options.leaseMs} milliseconds`;
  if (claimed.rows_estimated === null) {
    const estimate = await estimateRows(db, principal, filters);
    await db.execute(
      sql`UPDATE exports SET rows_estimated = ${estimate} WHERE id = ${claimed.id} AND attempts = ${claimed.attempts}`,
    );
  }
  let seq = claimed.chunks;
  let cursor = claimed.cursor ?? undefined;
  for (;;) {
    const listing = await callReadsWithHistory(db).exportPage(principal, exportCallFilters(filters), {
      pageSize: options.pageSize,
      cursor,
    });
    // The header row opens the first chunk.
    const body = (seq === 0 ? `${columns.join(",")}\r\n` : "") + csvRows(columns, listing.page);
    const done = listing.nextCursor === undefined;
    const written = await db.transaction(async (tx) => {
      const [kept] = await queryRows<{ id: string }>(
        tx,
        sql`UPDATE exports SET chunks = ${seq + 1}, rows_done = rows_done + ${listing.page.length},
              bytes = bytes + ${Buffer.byteLength(body)}, cursor = ${listing.nextCursor ?? null},
              leased_until = CASE WHEN ${done} THEN NULL ELSE now() + ${lease}::interval END,
              status = CASE WHEN ${done} THEN 'succeeded' ELSE status END,
              completed_at = CASE WHEN ${done} THEN now() END
            WHERE id = ${claimed.id} AND attempts = ${claimed.attempts} AND status = 'running' AND chunks = ${seq}
            RETURNING id`,
      );
      if (!kept) return false;
      await tx.execute(sql`INSERT INTO export_chunks (export_id, seq, body) VALUES (${claimed.id}, ${seq}, ${body})`);
      return true;
    });
    if (!written) return false;
    if (done) return true;
    seq++;
    cursor = listing.nextCursor;
  }
}

/**
 * Claims one due job and runs it to its end; answers whether one was claimed. A job claimed too often (its processes
 * kept dying) or failing for a reason other than an unreachable database is marked failed with the reason.
 */
export async function runNextExport(db: Db, options: ExportWorkerOptions = EXPORT_WORKER_DEFAULTS): Promise<boolean> {
  const claimed = await claimExport(db, options);
  if (!claimed) return false;
  if (claimed.attempts > options.maxAttempts) {
    await failExport(db, claimed, `The export was interrupted ${options.maxAttempts} times and was given up.`);
    return true;
  }
  try {
    await writeExport(db, claimed, options);
  } catch (error) {
    // Unreachable database: the lease lapses and a later claim resumes. Anything else would fail again the same way.
    if (isDatabaseUnavailable(error)) throw error;
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), event: "export failed", exportId: claimed.id, error: String((error as Error)?.stack ?? error) })}\n`,
    );
    await failExport(
      db,
      claimed,
      "The export failed on the server. Start a new one; if it fails again, report its id.",
    );
  }
  return true;
}

/** Deletes exports past their `expiresAt`, files included; answers how many. */
export async function deleteExpiredExports(db: Db): Promise<number> {
  const rows = await queryRows<{ id: string }>(db, sql`DELETE FROM exports WHERE expires_at <= now() RETURNING id`);
  return rows.length;
}

export interface ExportWorker {
  stop(): Promise<void>;
}

/**
 * Runs due exports one at a time, polling every `pollMs` (at once again after a job). A failing round (database
 * unreachable) is logged, once a minute at most, and retried at the next poll; the worker never crashes the process.
 */
export function startExportWorker(db: Db, options: ExportWorkerOptions = EXPORT_WORKER_DEFAULTS): ExportWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | null = null;
  let lastLoggedAt = 0;
  const tick = () => {
    if (stopped) return;
    round = runNextExport(db, options)
      .then(
        (ran) => ran,
        (error: unknown) => {
          if (Date.now() - lastLoggedAt > 60_000) {
            lastLoggedAt = Date.now();
            process.stderr.write(
              `${JSON.stringify({ time: new Date().toISOString(), event: "export round failed", error: (error as Error).message })}\n`,
            );
          }
          return false;
        },
      )
      .then((ran) => {
        round = null;
        if (stopped) return;
        timer = setTimeout(tick, ran ? 0 : options.pollMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
