import { sql } from "drizzle-orm";
import { DUE_NOW } from "@/lib/db/due-now";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { sendMail, type MailMessage } from "./send-mail";
import { startPeriodicTask, type PeriodicTask } from "@/lib/runtime/periodic-task";

// The mail outbox (mail_outbox): a message is written in the transaction that causes it and sent after commit by
// the mail worker, so a rolled-back cause mails nobody and a committed one mails each recipient once: `key` names the
// cause and the recipient, and a second enqueue of the same key is ignored (a re-run, a retried event). Claims are
// leases taken under row locks (SKIP LOCKED), so several processes share the outbox; a process that dies between
// sending and marking leaves a lease that lapses, and the message is sent again (at least once, never per re-run).

export interface QueuedMail {
  /** Unique per cause and recipient, e.g. `invoice:<id>:<user id>`. */
  key: string;
  to: string;
  subject: string;
  text: string;
  /** A reference the worker's `attachments` resolves when sending (an invoice's PDF). */
  attachment?: string | null;
  /** The From's display name (a reseller's, on its customers' invoice mail); absent: MAIL_FROM's own. */
  fromName?: string | null;
}

/** Queues messages in the caller's transaction; a key already queued is skipped. */
export async function enqueueMail(tx: Executor, mails: readonly QueuedMail[]): Promise<void> {
  if (mails.length === 0) return;
  const json = JSON.stringify(
    mails.map((m) => ({ k: m.key, r: m.to, s: m.subject, b: m.text, a: m.attachment ?? null, f: m.fromName ?? null })),
  );
  await tx.execute(sql`INSERT INTO mail_outbox (key, recipient, subject, body, attachment, from_name)
                       SELECT x.k, x.r, x.s, x.b, x.a, x.f
                         FROM json_to_recordset(${json}::json) AS x(k text, r text, s text, b text, a text, f text)
                       ON CONFLICT (key) DO NOTHING`);
}

export interface MailOutboxOptions {
  /** Files for a message's `attachment` reference. */
  attachments?: (reference: string) => Promise<MailMessage["attachments"]>;
  /** Sends one message. Default: sendMail (SMTP_URL, else the log). */
  send?: (message: MailMessage) => Promise<void>;
  maxAttempts?: number;
  retryBaseMs?: number;
  leaseMs?: number;
  batch?: number;
}

interface ClaimedMail {
  id: string;
  recipient: string;
  subject: string;
  body: string;
  attachment: string | null;
  fromName: string | null;
  attempts: number;
}

/** Sends what is due once: claims up to `batch` messages, sends each, marks it sent (or schedules a retry). */
export async function drainMailOutbox(db: Db, options: MailOutboxOptions = {}): Promise<number> {
  const { maxAttempts = 8, retryBaseMs = 30_000, leaseMs = 120_000, batch = 20 } = options;
  const send = options.send ?? sendMail;
  const claimed = await queryRows<ClaimedMail>(
    db,
    sql`UPDATE mail_outbox SET leased_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1
        WHERE id IN (SELECT id FROM mail_outbox
                     WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ${DUE_NOW}
                       AND (leased_until IS NULL OR leased_until < now())
                     ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
          AND (leased_until IS NULL OR leased_until < now())
        RETURNING id::text AS id, recipient, subject, body, attachment, from_name AS "fromName", attempts`,
  );
  let sent = 0;
  for (const m of claimed) {
    try {
      const attachments = m.attachment && options.attachments ? await options.attachments(m.attachment) : undefined;
      await send({
        to: m.recipient,
        subject: m.subject,
        text: m.body,
        attachments,
        ...(m.fromName ? { fromName: m.fromName } : {}),
      });
      await db.execute(sql`UPDATE mail_outbox SET sent_at = now(), leased_until = NULL, last_error = NULL
                           WHERE id = ${m.id}::bigint`);
      sent += 1;
    } catch (e) {
      const error = ((e as Error).message ?? String(e)).slice(0, 500);
      const delay = Math.min(retryBaseMs * 2 ** (m.attempts - 1), 6 * 3_600_000);
      await db.execute(sql`UPDATE mail_outbox SET leased_until = NULL, last_error = ${error},
                             failed_at = CASE WHEN attempts >= ${maxAttempts} THEN now() END,
                             next_attempt_at = now() + ${`${delay} milliseconds`}::interval
                           WHERE id = ${m.id}::bigint`);
    }
  }
  return sent;
}

export type MailWorker = PeriodicTask;

/** Drains the outbox every `intervalMs` in the server process (every process; the leases keep them apart). */
export function startMailWorker(db: Db, options: MailOutboxOptions & { intervalMs?: number } = {}): MailWorker {
  return startPeriodicTask("mail outbox failed", () => drainMailOutbox(db, options), options.intervalMs ?? 5_000);
}
