import { sql, type SQL } from "drizzle-orm";
import { emitWebhookEvent } from "@/lib/alerts/emit-event";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { queryRows, type Tx } from "@/lib/db/client";
import type { LimitRefusal } from "./enforce";
import type { RefusalCode } from "./schemas";

// A limit's crossing, told once (docs/contract.md "Limits"), in the transaction of the authorization it refuses.

const LIMITS_ACTOR: AuditActor = { type: "system", id: null, label: "account limits" };

/** The rules against fraud (a destination, a velocity): their crossing is also a `fraud.rule_hit`. */
const FRAUD_CODES: ReadonlySet<RefusalCode> = new Set([
  "destination_blocked",
  "destination_not_allowed",
  "velocity_limit",
]);

/**
 * A refusal by a limit, in the authorization's transaction (which then commits with nothing reserved): its record
 * (GET /v1/authorizations/refusals), and its crossing told once (docs/contract.md "Limits"): `limit.hit` (and
 * `fraud.rule_hit` for a destination or velocity rule) to the webhook outbox, and an audit event. One statement
 * writes the record and adds the limit to the account's told set only when it is not there yet (a conditional
 * UPDATE), so the next refusals of the same limit write nothing more; rearmLimitHits empties the set when an
 * authorization is admitted again. Refusals only: an admitted authorization pays for this nothing unless a limit was
 * hit before. Whether it told.
 */
export async function recordRefusal(
  tx: Tx,
  groupId: string,
  call: { uuid: string; destination: string },
  r: LimitRefusal,
  disableOnFraud = false,
): Promise<boolean> {
  const [added] = await queryRows<{ told: number | string }>(
    tx,
    sql`WITH r AS (
          INSERT INTO authorization_refusals (billing_group_id, uuid, destination, code, limit_name, limit_value,
            current_value, detail)
          VALUES (${groupId}, ${call.uuid}, ${call.destination}, ${r.code}, ${r.limit}, ${r.limitValue},
            ${r.currentValue}, ${r.detail})
        ), h AS (
          UPDATE account_limits SET hit = array_append(hit, ${r.limit}::text)
          WHERE billing_group_id = ${groupId} AND NOT (${r.limit}::text = ANY (hit))
          RETURNING billing_group_id
        )
        SELECT count(*)::int AS told FROM h`,
  );
  if (Number(added.told) === 0) return false;
  const data = {
    billingGroupId: groupId,
    code: r.code,
    limit: r.limit,
    limitValue: r.limitValue,
    currentValue: r.currentValue,
    detail: r.detail,
    uuid: call.uuid,
    destination: call.destination,
  };
  await emitWebhookEvent(tx, "limit.hit", groupId, data);
  if (FRAUD_CODES.has(r.code)) {
    await emitWebhookEvent(tx, "fraud.rule_hit", groupId, data);
    if (disableOnFraud) await disableForFraud(tx, groupId, data);
  }
  await recordAuditEvent(tx, {
    actor: LIMITS_ACTOR,
    action: "limit.hit",
    billingGroupId: groupId,
    targetType: "account",
    targetId: groupId,
    address: null,
    after: data,
  });
  return true;
}

/**
 * The operator's option on the fraud rules: the account is disabled as an operator disables it (disabledByOperator,
 * so the existing enable path, PATCH /v1/accounts/{id} `disabled: false` or `groups enable`, reverses it), audited as
 * `account.disabled` with the rule that fired. Under the group's row lock the refusal holds.
 */
async function disableForFraud(tx: Tx, groupId: string, data: Record<string, unknown>): Promise<void> {
  const flipped = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE billing_groups SET disabled_by_operator = true WHERE id = ${groupId} AND NOT disabled_by_operator
        RETURNING id`,
  );
  if (flipped.length === 0) return;
  await recordAuditEvent(tx, {
    actor: LIMITS_ACTOR,
    action: "account.disabled",
    billingGroupId: groupId,
    targetType: "account",
    targetId: groupId,
    address: null,
    before: { disabledByOperator: false },
    after: { disabledByOperator: true, reason: "fraud.rule_hit", ...data },
  });
}

/**
 * An authorization of the account was admitted: every limit's next crossing is told again. A CTE of the admitting
 * statement, there only right after a hit.
 */
export function rearmLimitHits(groupId: string): SQL {
  return sql`rearm AS (UPDATE account_limits SET hit = '{}' WHERE billing_group_id = ${groupId})`;
}
