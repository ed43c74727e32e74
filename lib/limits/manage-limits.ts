import { sql, type SQL } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { accountOf, isPlatform, reachOf, requireProvisioningOf } from "@/lib/auth/reach";
import type { ChangeContext } from "@/lib/billing/change-context";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { microsToNumber } from "@/lib/money/micros";
import { activeReservations, settledSpend } from "./enforce";
import {
  layerAnswer,
  layerFromBody,
  looseningsUnder,
  parseStoredLayer,
  storedLayer,
  type LayerName,
  type LimitLayers,
} from "./layers";
import type { Limits, LimitsBody } from "./schemas";

// GET/PUT /v1/limits: an account's layers of limits, one per setter (docs/contract.md "Limits"). The platform writes the
// operator's layer; the account's parent reseller (a caller bound to the parent, which provisions it:
// requireProvisioningOf, lib/auth/reach.ts) the provider's; a caller bound to the account itself (its owners and
// admins, keys with limits:write) the customer's.

interface GroupRow {
  currency: string;
  time_zone: string;
  parent_id: string | null;
  operator: string | null;
  provider: string | null;
  customer: string | null;
}

function layersOf(row: GroupRow): LimitLayers {
  return {
    operator: parseStoredLayer(row.operator),
    provider: parseStoredLayer(row.provider),
    customer: parseStoredLayer(row.customer),
  };
}

async function groupRow(db: Executor, groupId: string, lock: boolean): Promise<GroupRow> {
  const [row] = await queryRows<GroupRow>(
    db,
    sql`SELECT trim(g.currency) AS currency, g.time_zone, g.parent_id, l.operator::text AS operator,
               l.provider::text AS provider, l.customer::text AS customer
        FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
        WHERE g.id = ${groupId} ${lock ? sql`FOR UPDATE OF g` : sql``}`,
  );
  if (!row) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
  return row;
}

async function answer(db: Executor, groupId: string, row: GroupRow): Promise<Limits> {
  const active = await activeReservations(db, groupId);
  const spent = await settledSpend(db, groupId, row.time_zone);
  const layers = layersOf(row);
  return {
    billingGroupId: groupId,
    currency: row.currency,
    timeZone: row.time_zone,
    operator: layerAnswer(layers.operator),
    provider: row.parent_id === null ? null : layerAnswer(layers.provider),
    customer: layerAnswer(layers.customer),
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
 * Which layer the caller writes: the platform the operator's; the account's own caller the customer's; a reseller
 * above it (one that provisions it: requireProvisioningOf, lib/auth/reach.ts) the provider's. There is one provider
 * layer: its parent reseller sets it, and a reseller further up, which provisions the account too, writes the same one.
 */
function writerLayer(principal: Principal, groupId: string): LayerName {
  const reach = reachOf(principal);
  if (isPlatform(reach)) return "operator";
  if (reach.own === groupId) return "customer";
  requireProvisioningOf(reach, groupId, "set the limits of");
  return "provider";
}

const LAYER_SQL: Record<LayerName, SQL> = {
  operator: sql.raw("operator"),
  provider: sql.raw("provider"),
  customer: sql.raw("customer"),
};

/**
 * PUT: replaces the caller's layer (writerLayer; docs/contract.md "Limits", "Reseller tiers"), audited as
 * `limits.updated` with the layer before and after, in one transaction holding the group's row lock (the one every
 * authorization takes). A provider's number above the operator's, or a customer's above either, is refused (422), not
 * stored. The caller's reach is checked first (accountOf: outside its subtree 404).
 */
export async function putLimits(db: Db, principal: Principal, body: LimitsBody, by: ChangeContext): Promise<Limits> {
  const groupId = accountOf(principal, body.billingGroupId);
  if (groupId === null) throw accountRequired("billingGroupId", "invalid_request_body");
  const layer = layerFromBody(body);
  return db.transaction(async (tx) => {
    const row = await groupRow(tx, groupId, true);
    const layerName = writerLayer(principal, groupId);
    const layers = layersOf(row);
    const before = layers[layerName];
    if (layerName !== "operator") {
      const errors = looseningsUnder(layerName, layers, layer);
      if (errors.length > 0)
        throw new ApiError(
          "invalid_request_body",
          layerName === "customer"
            ? "A customer's limits may only tighten the operator's and its provider's."
            : "A provider's limits may only tighten the operator's.",
          errors,
        );
    }
    const stored = JSON.stringify(storedLayer(layer));
    const column = LAYER_SQL[layerName];
    await tx.execute(
      sql`INSERT INTO account_limits (billing_group_id, ${column}) VALUES (${groupId}, ${stored}::jsonb)
          ON CONFLICT (billing_group_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = now()`,
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
