import { sql } from "drizzle-orm";
import { emitWebhookEvent } from "@/lib/alerts/emit-event";
import type { WebhookEventType } from "@/lib/alerts/event-types";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { queryRows, type Db } from "@/lib/db/client";
import { startPeriodicTask, type PeriodicTask } from "@/lib/runtime/periodic-task";
import { crossingsOf, judgeWindow, qualityMetrics, type Crossing, type QualityMetric } from "./quality-window";
import { countsOf, WINDOW_COUNTS, type WindowCountsRow } from "./read-windows";

// The quality evaluator (docs/contract.md "Quality windows and alerts"): on a schedule, never on the ingest path, each
// threshold's window is read from the account's outbound calls (primary key: billing_group_id, start_time) and judged;
// a metric whose state changes is flipped by a conditional UPDATE in the transaction that writes its event to the
// webhook outbox and the audit log. A second process (or a restart) judging the same crossing finds the state already
// flipped and writes nothing: each crossing fires once, and re-arms only after a recovery.

const QUALITY_ACTOR: AuditActor = { type: "system", id: null, label: "quality alerts" };

const STATE_COLUMN: Record<QualityMetric, string> = { asr: "asr_low", acd: "acd_low", pdd: "pdd_high" };
const PAST_EVENT: Record<QualityMetric, WebhookEventType> = {
  asr: "quality.asr_low",
  acd: "quality.acd_low",
  pdd: "quality.pdd_high",
};

interface ThresholdWindowRow extends WindowCountsRow {
  billing_group_id: string;
  name: string;
  prefix: string;
  window_minutes: number;
  min_calls: number;
  asr_min_bp: number | null;
  acd_min_seconds: number | null;
  pdd_max_ms: number | null;
  asr_low: boolean;
  acd_low: boolean;
  pdd_high: boolean;
}

export interface QualityRound {
  judged: number;
  /** Crossings this round wrote (another process may have written the others). */
  fired: (Crossing & { billingGroupId: string; prefix: string | null })[];
}

function thresholdOf(row: ThresholdWindowRow, metric: QualityMetric): number | null {
  if (metric === "asr") return row.asr_min_bp === null ? null : row.asr_min_bp / 100;
  return metric === "acd" ? row.acd_min_seconds : row.pdd_max_ms;
}

/** Judges every threshold's window ending at `now` and fires the crossings. */
export async function evaluateQuality(db: Db, now = new Date()): Promise<QualityRound> {
  const at = now.toISOString();
  const rows = await queryRows<ThresholdWindowRow>(
    db,
    sql`SELECT t.billing_group_id, g.name, t.prefix, t.window_minutes, t.min_calls, t.asr_min_bp, t.acd_min_seconds,
               t.pdd_max_ms, t.asr_low, t.acd_low, t.pdd_high, w.*
        FROM quality_thresholds t JOIN billing_groups g ON g.id = t.billing_group_id
        CROSS JOIN LATERAL (
          SELECT ${WINDOW_COUNTS} FROM calls c
          WHERE c.billing_group_id = t.billing_group_id AND c.direction = 'outbound'
            AND c.start_time >= ${at}::timestamptz - make_interval(mins => t.window_minutes)
            AND c.start_time <= ${at}::timestamptz
            AND (t.prefix = '' OR c.to_number LIKE t.prefix || '%')) w
        ORDER BY t.billing_group_id, t.prefix`,
  );
  const fired: QualityRound["fired"] = [];
  for (const row of rows) {
    const counts = countsOf(row);
    const limits = {
      minCalls: row.min_calls,
      asrMinBp: row.asr_min_bp,
      acdMinSeconds: row.acd_min_seconds,
      pddMaxMs: row.pdd_max_ms,
    };
    const recorded = { asr: row.asr_low, acd: row.acd_low, pdd: row.pdd_high };
    for (const crossing of crossingsOf(recorded, judgeWindow(limits, counts))) {
      const column = sql.raw(STATE_COLUMN[crossing.metric]);
      const data = {
        billingGroupId: row.billing_group_id,
        name: row.name,
        prefix: row.prefix === "" ? null : row.prefix,
        metric: crossing.metric,
        value: qualityMetrics(counts)[crossing.metric],
        threshold: thresholdOf(row, crossing.metric),
        windowMinutes: row.window_minutes,
        windowEnd: at,
        attempts: counts.attempts,
        answered: counts.answered,
        pddCalls: counts.pddCalls,
      };
      const type: WebhookEventType = crossing.past ? PAST_EVENT[crossing.metric] : "quality.recovered";
      const wrote = await db.transaction(async (tx) => {
        // Flips only from the state this round read, and only while the limits it judged by stand (a PUT between
        // the read and here starts its metrics afresh): the row lock serialises processes, the WHERE drops repeats.
        const flipped = await queryRows<{ prefix: string }>(
          tx,
          sql`UPDATE quality_thresholds SET ${column} = ${crossing.past}, evaluated_at = ${at}::timestamptz
              WHERE billing_group_id = ${row.billing_group_id} AND prefix = ${row.prefix}
                AND ${column} = ${!crossing.past} AND window_minutes = ${row.window_minutes}
                AND min_calls = ${row.min_calls} AND asr_min_bp IS NOT DISTINCT FROM ${row.asr_min_bp}::int
                AND acd_min_seconds IS NOT DISTINCT FROM ${row.acd_min_seconds}::int
                AND pdd_max_ms IS NOT DISTINCT FROM ${row.pdd_max_ms}::int
              RETURNING prefix`,
        );
        if (flipped.length === 0) return false;
        await emitWebhookEvent(tx, type, row.billing_group_id, data);
        await recordAuditEvent(tx, {
          actor: QUALITY_ACTOR,
          action: type,
          billingGroupId: row.billing_group_id,
          targetType: "account",
          targetId: row.billing_group_id,
          address: null,
          after: data,
        });
        return true;
      });
      if (wrote) fired.push({ ...crossing, billingGroupId: row.billing_group_id, prefix: data.prefix });
    }
  }
  if (rows.length > 0) {
    const keys = JSON.stringify(rows.map((r) => ({ g: r.billing_group_id, p: r.prefix })));
    await db.execute(sql`UPDATE quality_thresholds t SET evaluated_at = ${at}::timestamptz
                         FROM jsonb_to_recordset(${keys}::jsonb) AS k(g text, p text)
                         WHERE t.billing_group_id = k.g AND t.prefix = k.p`);
  }
  return { judged: rows.length, fired };
}

export type QualityWorker = PeriodicTask;

/** In every server process: a round every `intervalMs` (processes side by side fire each crossing once). */
export function startQualityWorker(db: Db, intervalMs: number): QualityWorker {
  return startPeriodicTask("quality round failed", () => evaluateQuality(db), intervalMs);
}
