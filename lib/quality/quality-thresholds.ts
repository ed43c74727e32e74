import { asc, eq } from "drizzle-orm";
import { accountOf } from "@/lib/auth/reach";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db, Executor } from "@/lib/db/client";
import { billingGroups, qualityThresholds } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import type { QualityThreshold, QualityThresholds, QualityThresholdsBody } from "./schemas";

// GET/PUT /v1/quality/thresholds: an account's quality thresholds, replaced as a whole set (as the low-balance
// thresholds of /v1/alert-thresholds are). A metric whose limit is unchanged keeps its state; a new or changed one
// starts within its threshold, so a window already past it fires at the next evaluation.

type Row = typeof qualityThresholds.$inferSelect;

function toThreshold(row: Row): QualityThreshold {
  return {
    prefix: row.prefix === "" ? null : row.prefix,
    windowMinutes: row.windowMinutes,
    minCalls: row.minCalls,
    asrMin: row.asrMinBp === null ? null : row.asrMinBp / 100,
    acdMin: row.acdMinSeconds,
    pddMax: row.pddMaxMs,
    asrLow: row.asrLow,
    acdLow: row.acdLow,
    pddHigh: row.pddHigh,
    evaluatedAt: row.evaluatedAt?.toISOString() ?? null,
  };
}

/** What the audit log keeps of a threshold: its limits, not its state. */
function limitsOf(t: QualityThreshold) {
  const { prefix, windowMinutes, minCalls, asrMin, acdMin, pddMax } = t;
  return { prefix, windowMinutes, minCalls, asrMin, acdMin, pddMax };
}

async function listRows(db: Executor, billingGroupId: string): Promise<Row[]> {
  return db
    .select()
    .from(qualityThresholds)
    .where(eq(qualityThresholds.billingGroupId, billingGroupId))
    .orderBy(asc(qualityThresholds.prefix));
}

async function existingAccount(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ id: billingGroups.id }).from(billingGroups).where(eq(billingGroups.id, id));
  return Boolean(row);
}

export async function readQualityThresholds(
  db: Executor,
  principal: Principal,
  account: string | undefined,
): Promise<QualityThresholds> {
  const group = accountOf(principal, account);
  if (group === null)
    throw new ApiError("invalid_parameter", "A platform caller names the account.", [
      { param: "account", message: "is required for a platform caller" },
    ]);
  if (!(await existingAccount(db, group)))
    throw new ApiError("not_found", `No account with id ${JSON.stringify(group.slice(0, 64))}.`);
  return { billingGroupId: group, thresholds: (await listRows(db, group)).map(toThreshold) };
}

/** PUT: the whole set, under the account's row lock, audited (`quality_threshold.changed`, before and after). */
export async function replaceQualityThresholds(
  db: Db,
  principal: Principal,
  body: QualityThresholdsBody,
  by: ChangeContext,
): Promise<QualityThresholds> {
  const group = accountOf(principal, body.billingGroupId);
  if (group === null)
    throw new ApiError("invalid_request_body", "A platform caller names the account.", [
      { param: "billingGroupId", message: "is required for a platform caller" },
    ]);
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: billingGroups.id })
      .from(billingGroups)
      .where(eq(billingGroups.id, group))
      .for("update");
    if (!locked) throw new ApiError("not_found", `No account with id ${JSON.stringify(group.slice(0, 64))}.`);
    const before = await listRows(tx, group);
    const previous = new Map(before.map((row) => [row.prefix, row]));
    await tx.delete(qualityThresholds).where(eq(qualityThresholds.billingGroupId, group));
    const values = body.thresholds.map((t) => {
      const prefix = t.prefix ?? "";
      const was = previous.get(prefix);
      const asrMinBp = t.asrMin === undefined ? null : Math.round(t.asrMin * 100);
      const acdMinSeconds = t.acdMin ?? null;
      const pddMaxMs = t.pddMax ?? null;
      // A state stays only with the window and limit it was judged against.
      const same = was !== undefined && was.windowMinutes === t.windowMinutes && was.minCalls === t.minCalls;
      return {
        billingGroupId: group,
        prefix,
        windowMinutes: t.windowMinutes,
        minCalls: t.minCalls,
        asrMinBp,
        acdMinSeconds,
        pddMaxMs,
        asrLow: same && asrMinBp !== null && was.asrMinBp === asrMinBp && was.asrLow,
        acdLow: same && acdMinSeconds !== null && was.acdMinSeconds === acdMinSeconds && was.acdLow,
        pddHigh: same && pddMaxMs !== null && was.pddMaxMs === pddMaxMs && was.pddHigh,
        evaluatedAt: same ? was.evaluatedAt : null,
      };
    });
    if (values.length > 0) await tx.insert(qualityThresholds).values(values);
    const after = (await listRows(tx, group)).map(toThreshold);
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "quality_threshold.changed",
      billingGroupId: group,
      targetType: "account",
      targetId: group,
      address: by.address,
      before: { thresholds: before.map(toThreshold).map(limitsOf) },
      after: { thresholds: after.map(limitsOf) },
    });
    return { billingGroupId: group, thresholds: after };
  });
}
