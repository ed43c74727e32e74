import { sql } from "drizzle-orm";
import { isEmbedded, queryRows, type Db } from "@/lib/db/client";
import { operatorIdentity } from "@/lib/config/env";
import { issueInvoices, type Issuer } from "./issue-invoice";
import { issueNoteIfChanged } from "./issue-note";

export interface InvoiceRunOptions {
  /** Periods that ended at or before this instant are closed. Default: now. */
  now?: Date;
  /** Default: OPERATOR_NAME and OPERATOR_ADDRESS (lib/config/env.ts). */
  issuer?: Issuer;
  /** Batches issued at once (PostgreSQL; the embedded engine has one connection). Default 2. */
  concurrency?: number;
  /** Groups per issuing transaction. Default 100. */
  batchSize?: number;
}

export interface InvoiceRunResult {
  invoices: number;
  notes: number;
  /** Invoices compared again with their calls because calls of their period were written (marks). */
  rechecked: number;
}

interface DuePeriod {
  id: string;
  period_start: Date | string;
  period_end: Date | string;
}

const MARK_BATCH = 1_000;

/**
 * The invoice run (docs/contract.md §10): for every group, each calendar month of its zone that has closed and has no
 * invoice yet, oldest first, from the month the group was created; then every invoice whose period had calls written
 * since it was issued (invoice_recheck_marks, written by the trigger on calls: lib/invoices/triggers.ts) is compared
 * with its calls and corrected by a note. Idempotent: a second run issues nothing. Safe with several processes: each
 * document is issued under its group's advisory lock after checking that it is still due, and the unique key (group,
 * period) refuses a duplicate invoice.
 */
export async function runInvoices(db: Db, options: InvoiceRunOptions = {}): Promise<InvoiceRunResult> {
  const now = options.now ?? new Date();
  const issuer = options.issuer ?? operatorIdentity();
  const concurrency = isEmbedded(db) ? 1 : Math.max(1, options.concurrency ?? 2);
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const result: InvoiceRunResult = { invoices: 0, notes: 0, rechecked: 0 };
  // Each round issues the next closed period of every group behind; a group with a backlog takes several rounds.
  for (;;) {
    const due = await duePeriods(db, now);
    if (due.length === 0) break;
    let issued = 0;
    const batches: DuePeriod[][] = [];
    for (let i = 0; i < due.length; i += batchSize) batches.push(due.slice(i, i + batchSize));
    await forEachConcurrently(batches, concurrency, async (batch) => {
      const numbers = await issueInvoices(
        db,
        batch.map((p) => ({ groupId: p.id, start: new Date(p.period_start), end: new Date(p.period_end) })),
        issuer,
      );
      issued += numbers.length;
    });
    result.invoices += issued;
    // Another process issued them (it goes on with the rest).
    if (issued === 0) break;
  }
  for (;;) {
    const marks = await queryRows<{ id: string }>(
      db,
      sql`SELECT id::text AS id FROM invoice_recheck_marks ORDER BY id LIMIT ${MARK_BATCH}`,
    );
    if (marks.length === 0) break;
    const ids = JSON.stringify(marks.map((m) => m.id));
    const marked = sql`(SELECT json_array_elements_text(${ids}::json)::bigint)`;
    const invoices = await queryRows<{ id: string }>(
      db,
      sql`SELECT DISTINCT i.id FROM invoices i
          JOIN (SELECT DISTINCT billing_group_id, day FROM invoice_recheck_marks WHERE id IN ${marked}) m
            ON i.billing_group_id = m.billing_group_id AND i.kind = 'invoice'
           AND i.period_start < m.day + interval '1 day' AND i.period_end > m.day
          ORDER BY i.id`,
    );
    await forEachConcurrently(invoices, concurrency, async (i) => {
      if ((await issueNoteIfChanged(db, i.id, issuer)) !== null) result.notes += 1;
    });
    result.rechecked += invoices.length;
    // Only the marks read: one written meanwhile (its call committed after the comparison) stays for the next run.
    await db.execute(sql`DELETE FROM invoice_recheck_marks WHERE id IN ${marked}`);
  }
  return result;
}

/** Each group's next period (after its last invoice, else its creation month), when it has closed by `now`. */
async function duePeriods(db: Db, now: Date): Promise<DuePeriod[]> {
  return queryRows<DuePeriod>(
    db,
    sql`WITH next AS (
          SELECT g.id, g.time_zone AS tz, coalesce(
            (SELECT i.period_end FROM invoices i WHERE i.billing_group_id = g.id AND i.kind = 'invoice'
             ORDER BY i.period_start DESC LIMIT 1),
            date_trunc('month', g.created_at AT TIME ZONE g.time_zone) AT TIME ZONE g.time_zone) AS period_start
          FROM billing_groups g
        ), bounded AS (
          SELECT id, period_start,
                 (date_trunc('month', period_start AT TIME ZONE tz) + interval '1 month') AT TIME ZONE tz AS period_end
          FROM next
        )
        SELECT id, period_start, period_end FROM bounded WHERE period_end <= ${now.toISOString()}::timestamptz ORDER BY id`,
  );
}

async function forEachConcurrently<T>(
  items: T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
