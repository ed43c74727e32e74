import { sql } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { accountOf, provisions, reachOf } from "@/lib/auth/reach";
import type { ChangeContext } from "@/lib/billing/change-context";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { microsToNumber } from "@/lib/money/micros";
import { activeReservations, settledSpend } from "./enforce";
import { layerAnswer, layerFromBody, loosenings, parseStoredLayer, storedLayer, type LimitLayer } from "./layers";
import type { Limits, LimitsBody } from "./schemas";

// GET/PUT /v1/limits: an account's two layers of limits. Whoever provisions the account (requireProvisioningOf,
// lib/auth/reach.ts: the platform, or a reseller above it) writes the operator's layer; a caller bound to the account
// itself (its owners and admins, keys with limits:write) the customer's.

interface GroupRow {
  currency: string;
  time_zone: string;
  operator: string | null;
  customer: string | null;
}

async function groupRow(db: Executor, groupId: string, lock: boolean): Promise<GroupRow> {
  const [row] = await queryRows<GroupRow>(
    db,
    sql`SELECT trim(g.currency) AS currency, g.time_zone, l.operator::text AS operator, l.customer::text AS customer
        FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
        WHERE g.id = ${groupId} ${lock ? sql`FOR UPDATE OF g` : sql``}`,
  );
  if (!row) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
  return row;
}

async function answer(db: Executor, groupId: string, row: GroupRow): Promise<Limits> {
  const active = await activeReservations(db, groupId);
  const spent = await settledSpend(db, groupId, row.time_zone);
  return {
    billingGroupId: groupId,
    currency: row.currency,
    timeZone: row.time_zone,
    operator: layerAnswer(parseStoredLayer(row.operator)),
    customer: layerAnswer(parseStoredLayer(row.customer)),
    usage: {
      concurrentCalls: active.count,
      openReservations: microsToNumber(active.totalMicros),
      settledToday: microsToNumber(spent.todayMicros),
      settledThisMonth: microsToNumber(spent.monthMicros),
    },
  };
}

function accountRequired(param: string, code: "invalid_parameter" | "invalid_request_body"): ApiError {
  return new ApiError(code, "A platform caller names the account.", [
    { param, message: "is required for a platform caller" },
  ]);
}

export async function readLimits(db: Executor, principal: Principal, account: string | undefined): Promise<Limits> {
  const groupId = accountOf(principal, account);
  if (groupId === null) throw accountRequired("account", "invalid_parameter");
  return answer(db, groupId, await groupRow(db, groupId, false));
}

/**
 * PUT: replaces the caller's layer (the operator's for the platform or a reseller above the account, the customer's
 * for the account's own caller; docs/contract.md "Reseller tiers"), audited as
 * `limits.updated` with the layer before and after, in one transaction holding the group's row lock (the one every
 * authorization takes). A customer's number above the operator's is refused (422), not stored.
 */
export async function putLimits(db: Db, principal: Principal, body: LimitsBody, by: ChangeContext): Promise<Limits> {
  const groupId = accountOf(principal, body.billingGroupId);
  if (groupId === null) throw accountRequired("billingGroupId", "invalid_request_body");
  const layerName = provisions(reachOf(principal), groupId) ? "operator" : "customer";
  const layer = layerFromBody(body);
  return db.transaction(async (tx) => {
    const row = await groupRow(tx, groupId, true);
    const operator = layerName === "operator" ? layer : parseStoredLayer(row.operator);
    const before: LimitLayer = parseStoredLayer(layerName === "operator" ? row.operator : row.customer);
    if (layerName === "customer") {
      const errors = loosenings(operator, layer);
      if (errors.length > 0)
        throw new ApiError("invalid_request_body", "A customer's limits may only tighten the operator's.", errors);
    }
    const stored = JSON.stringify(storedLayer(layer));
    await tx.execute(
      layerName === "operator"
        ? sql`INSERT INTO account_limits (billing_group_id, operator) VALUES (${groupId}, ${stored}::jsonb)
              ON CONFLICT (billing_group_id) DO UPDATE SET operator = excluded.operator, updated_at = now()`
        : sql`INSERT INTO account_limits (billing_group_id, customer) VALUES (${groupId}, ${stored}::jsonb)
              ON CONFLICT (billing_group_id) DO UPDATE SET customer = excluded.customer, updated_at = now()`,
    );
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "limits.updated",
      billingGroupId: groupId,
      targetType: "account",
      targetId: groupId,
      address: by.address,
      before: { layer: layerName, ...storedLayer(before) },
      after: { layer: layerName, ...storedLayer(layer) },
    });
    return answer(tx, groupId, await groupRow(tx, groupId, false));
  });
}
