import { sql } from "drizzle-orm";
import { auditActorOf, CLI_ACTOR } from "@/lib/audit/actor";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import { queryRows, type Db } from "@/lib/db/client";
import { organizationOfGroup, PLATFORM_ORGANIZATION_ID } from "./organizations";

// An organization's "require two-factor" setting (docs/contract.md §15): its members without TOTP keep their
// session but have no scopes until they set it up (lib/auth/find-key.ts), so the portal shows them only its Security
// page and /v1 answers 403 `two_factor_required`. Changing it NOTIFYs callbook_auth (migration 0015).

export async function requiresTwoFactor(db: Db, organizationId: string): Promise<boolean> {
  const [row] = await queryRows<{ require_two_factor: boolean }>(
    db,
    sql`SELECT require_two_factor FROM organizations WHERE id = ${organizationId}`,
  );
  return row?.require_two_factor === true;
}

async function save(
  db: Db,
  organizationId: string,
  on: boolean,
  actor: AuditActor,
  address: string | null,
): Promise<boolean> {
  const changed = await db.transaction(async (tx) => {
    const [before] = await queryRows<{ require_two_factor: boolean; billing_group_id: string | null }>(
      tx,
      sql`SELECT require_two_factor, billing_group_id FROM organizations WHERE id = ${organizationId} FOR UPDATE`,
    );
    if (!before) return false;
    if (before.require_two_factor === on) return true;
    await tx.execute(sql`UPDATE organizations SET require_two_factor = ${on} WHERE id = ${organizationId}`);
    await recordAuditEvent(tx, {
      actor,
      action: "organization.two_factor_required",
      billingGroupId: before.billing_group_id,
      targetType: "organization",
      targetId: organizationId,
      address,
      before: { requireTwoFactor: before.require_two_factor },
      after: { requireTwoFactor: on },
    });
    return true;
  });
  principalCacheFor(db).invalidate();
  return changed;
}

export type RequirementChange = { ok: true } | { ok: false; reason: "forbidden" | "enroll_first"; message: string };

/**
 * An owner or admin (members:write) turns the requirement on or off for their organization. Turning it on asks that
 * they have a second factor themselves: the setting is theirs to live by too.
 */
export async function setTwoFactorRequirement(
  db: Db,
  principal: Principal,
  on: boolean,
  address: string | null,
): Promise<RequirementChange> {
  if (principal.via !== "user_session" || !principal.organizationId || !principal.scopes.has("members:write")) {
    return { ok: false, reason: "forbidden", message: "Only an owner or admin changes this setting." };
  }
  if (on) {
    const [me] = await queryRows<{ two_factor_enabled: boolean }>(
      db,
      sql`SELECT two_factor_enabled FROM users WHERE id = ${principal.userId ?? ""}`,
    );
    if (!me?.two_factor_enabled) {
      return {
        ok: false,
        reason: "enroll_first",
        message: "Set up your own authenticator app first, then require it of everyone.",
      };
    }
  }
  await save(db, principal.organizationId, on, auditActorOf(principal), address);
  return { ok: true };
}

/** The operator's switch (admin CLI `people require-2fa`): a billing group's organization, or "platform". */
export async function setTwoFactorRequirementByOperator(db: Db, organization: string, on: boolean): Promise<boolean> {
  const organizationId =
    organization === "platform" ? PLATFORM_ORGANIZATION_ID : await organizationOfGroup(db, organization);
  return save(db, organizationId, on, CLI_ACTOR, null);
}
