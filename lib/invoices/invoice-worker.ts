import type { Db } from "@/lib/db/client";
import { startPeriodicTask, type PeriodicTask } from "@/lib/runtime/periodic-task";
import { runInvoices, type InvoiceRunResult } from "./run-invoices";

/**
 * How long after a period's end the server's run treats it as closed: transactions that began before the end (a
 * top-up, a batch of CDRs) have committed by then, so the invoice's balance section sees them. A call that still
 * arrives later is corrected by a note.
 */
export const SETTLE_MS = 5 * 60_000;

export type InvoiceWorker = PeriodicTask;

/**
 * The invoice run inside every server process (README "Invoices"): once at start, then every `intervalMs`. Processes
 * run it side by side safely (runInvoices takes the group's lock for every document), so no process needs to be
 * elected; a failed round is logged (once per distinct error per hour) and retried at the next.
 */
export function startInvoiceWorker(
  db: Db,
  intervalMs: number,
  onRound: (result: InvoiceRunResult) => void = () => undefined,
): InvoiceWorker {
  let lastError = "";
  let lastLoggedAt = 0;

  const round = async () => {
    try {
      const result = await runInvoices(db, { now: new Date(Date.now() - SETTLE_MS) });
      if (result.invoices > 0 || result.notes > 0)
        process.stdout.write(
          `${JSON.stringify({ time: new Date().toISOString(), event: "invoices issued", ...result })}\n`,
        );
      onRound(result);
    } catch (e) {
      const error = (e as Error).message;
      if (error !== lastError || Date.now() - lastLoggedAt > 3_600_000) {
        lastError = error;
        lastLoggedAt = Date.now();
        process.stderr.write(
          `${JSON.stringify({ time: new Date().toISOString(), event: "invoice run failed", error })}\n`,
        );
      }
    }
  };
  // The round logs its own failures (once per distinct error per hour): it never throws.
  return startPeriodicTask("invoice run failed", round, intervalMs);
}
