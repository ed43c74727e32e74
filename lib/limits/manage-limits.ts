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
  storedLayerOf,
  type LimitLayer,
} from "./layers";
import type { Limits, LimitsBody } from "./schemas";

// GET/PUT /v1/limits: an account's layers of limits, one per setter (docs/contract.md "Limits"). The platform writes the
// operator's layer; each reseller above the account (a caller bound to it, which provisions the account:
// requireProvisioningOf, lib/auth/reach.ts) its own provider layer, kept under its account id (migration 0041); a
// caller bound to the account itself (its owners and admins, keys with limits:write) the customer's.

interface GroupRow {
  currency: string;
  time_zone: string;
  /** The resellers above the account, nearest (its parent) first. */
  ancestors: string[];
  operator: string | null;
  /** account_limits.providers: each reseller's stored layer by its account id. */
  providers: string | null;
  customer: string | null;
}

interface StoredLayers {
  operator: LimitLayer;
  /** Each ancestor's layer, nearest first (NO_LIMITS where it set none), beside the ancestors' ids. */
  providers: { id: string; layer: LimitLayer }[];
  customer: LimitLayer;
}

function layersOf(row: GroupRow): StoredLayers {
  const byProvider = JSON.parse(row.providers ?? "{}") as Record<string, unknown>;
  return {
    operator: parseStoredLayer(row.operator),
    providers: row.ancestors.map((id) => ({
      id,
      layer: storedLayerOf(byProvider[id]),
    })),
    customer: parseStoredLayer(row.customer),
  };
}

async function groupRow(db: Executor, groupId: string, lock: boolean): Promise<GroupRow> {
  const [row] = await queryRows<GroupRow>(
    db,
    sql`SELECT trim(g.currency) AS currency, g.time_zone, l.operator::text AS operator,
               l.providers::text AS providers, l.customer::text AS customer,
               ARRAY(WITH RECURSIVE up(id, parent_id, depth) AS (
                   SELECT p.id, p.parent_id, 1 FROM billing_groups p WHERE p.id = g.parent_id
                   UNION ALL SELECT q.id, q.parent_id, up.depth + 1 FROM billing_groups q JOIN up ON q.id = up.parent_id)
                 SELECT up.id FROM up ORDER BY up.depth) AS ancestors
        FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
        WHERE g.id = ${groupId} ${lock ? sql`FOR UPDATE OF g` : sql``}`,
  );
  if (!row) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
  return row;
}

/** The reseller above the account that the principal is (its own layer is the one it writes), if it is one. */
function providerOf(principal: Principal, groupId: string, row: GroupRow): string | undefined {
  const reach = reachOf(principal);
  return !isPlatform(reach) && reach.own !== groupId && row.ancestors.includes(reach.own) ? reach.own : undefined;
}

async function answer(db: Executor, principal: Principal, groupId: string, row: GroupRow): Promise<Limits> {
  const active = await activeReservations(db, groupId);
  const spent = await settledSpend(db, groupId, row.time_zone);
  const layers = layersOf(row);
  const caller = providerOf(principal, groupId, row);
  const shown = layers.providers.find((p) => p.id === caller) ?? layers.providers[0];
  return {
    billingGroupId: groupId,
    currency: row.currency,
    timeZone: row.time_zone,
    operator: layerAnswer(layers.operator),
    provider: shown === undefined ? null : layerAnswer(shown.layer),
    providers: layers.providers.map((p, i) => ({ depth: i + 1, ...layerAnswer(p.layer) })),
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
  return answer(db, principal, groupId, await groupRow(db, groupId, false));
}

type Writer = { layer: "operator" } | { layer: "customer" } | { layer: "provider"; id: string };

/**
 * Which layer the caller writes: the platform the operator's; the account's own caller the customer's; a reseller
 * above it (one that provisions it: requireProvisioningOf, lib/auth/reach.ts) its own provider layer on the account,
 * one per reseller (its parent's, and each one further up).
 */
function writerOf(principal: Principal, groupId: string): Writer {
  const reach = reachOf(principal);
  if (isPlatform(reach)) return { layer: "operator" };
  if (reach.own === groupId) return { layer: "customer" };
  requireProvisioningOf(reach, groupId, "set the limits of");
  return { layer: "provider", id: reach.own };
}

/**
 * The writer's layer as stored now, the provider layers over it (those further up; for the customer, all), and how it
 * is named in the audit: a provider's by its depth above the account (1: the parent), never by the reseller's id (the
 * account's own people read its audit log, and a reseller above their own is not theirs to know).
 */
function writerLayers(
  writer: Writer,
  layers: StoredLayers,
): { before: LimitLayer; over: LimitLayer[]; audit: Record<string, unknown> } {
  if (writer.layer === "operator") return { before: layers.operator, over: [], audit: { layer: "operator" } };
  if (writer.layer === "customer")
    return { before: layers.customer, over: layers.providers.map((p) => p.layer), audit: { layer: "customer" } };
  const at = layers.providers.findIndex((p) => p.id === writer.id);
  return {
    before: layers.providers[at]!.layer,
    over: layers.providers.slice(at + 1).map((p) => p.layer),
    audit: { layer: "provider", depth: at + 1 },
  };
}

/** Upserts the writer's layer alone: a provider's under its id in account_limits.providers (migration 0041). */
function writeLayerSql(groupId: string, writer: Writer, stored: string): SQL {
  if (writer.layer === "provider")
    return sql`INSERT INTO account_limits (billing_group_id, providers)
        VALUES (${groupId}, jsonb_build_object(${writer.id}::text, ${stored}::jsonb))
        ON CONFLICT (billing_group_id) DO UPDATE
        SET providers = account_limits.providers || excluded.providers, updated_at = now()`;
  const column = sql.raw(writer.layer);
  return sql`INSERT INTO account_limits (billing_group_id, ${column}) VALUES (${groupId}, ${stored}::jsonb)
      ON CONFLICT (billing_group_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = now()`;
}

/**
 * PUT: replaces the caller's layer (writerOf; docs/contract.md "Limits", "Reseller tiers"), audited as
 * `limits.updated` with the layer before and after, in one transaction holding the group's row lock (the one every
 * authorization takes). A provider's number above the operator's or a layer of a reseller above it, or a customer's above
 * any of them, is refused (422), not stored. The caller's reach is checked first (accountOf: outside its subtree 404).
 */
export async function putLimits(db: Db, principal: Principal, body: LimitsBody, by: ChangeContext): Promise<Limits> {
  const groupId = accountOf(principal, body.billingGroupId);
  if (groupId === null) throw accountRequired("billingGroupId", "invalid_request_body");
  const layer = layerFromBody(body);
  return db.transaction(async (tx) => {
    const row = await groupRow(tx, groupId, true);
    const writer = writerOf(principal, groupId);
    const layers = layersOf(row);
    const { before, over, audit } = writerLayers(writer, layers);
    if (writer.layer !== "operator") {
      const errors = looseningsUnder(layers.operator, over, layer);
      if (errors.length > 0)
        throw new ApiError(
          "invalid_request_body",
          writer.layer === "customer"
            ? "A customer's limits may only tighten the operator's and its providers'."
            : "A provider's limits may only tighten the operator's and those of the resellers above it.",
          errors,
        );
    }
    await tx.execute(writeLayerSql(groupId, writer, JSON.stringify(storedLayer(layer))));
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "limits.updated",
      billingGroupId: groupId,
      targetType: "account",
      targetId: groupId,
      address: by.address,
      before: { ...audit, ...storedLayer(before) },
      after: { ...audit, ...storedLayer(layer) },
    });
    return answer(tx, principal, groupId, await groupRow(tx, groupId, false));
  });
}
