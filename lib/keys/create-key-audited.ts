import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { createApiKey, type CreatedApiKey } from "@/lib/auth/manage-keys";
import type { Scope } from "@/lib/auth/scopes";
import type { Executor } from "@/lib/db/client";

/** A key as the audit log's snapshot shows it: what /v1 shows, never the secret. */
export function keySnapshot(key: CreatedApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    billingGroupId: key.billingGroupId,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
  };
}

/**
 * Creates a key and records `api_key.created`, in the caller's transaction (`tx`): the checks of who may make which
 * key are the caller's (create-key.ts for /v1; the operator's CLI may make any).
 */
export async function createKeyAudited(
  tx: Executor,
  options: { scopes: Scope[]; billingGroupId: string | null; name?: string; expiresAt?: Date | null },
  actor: AuditActor,
  address: string | null,
): Promise<CreatedApiKey> {
  const created = await createApiKey(tx, options);
  await recordAuditEvent(tx, {
    actor,
    action: "api_key.created",
    billingGroupId: created.billingGroupId,
    targetType: "api_key",
    targetId: created.id,
    address,
    before: null,
    after: keySnapshot(created),
  });
  return created;
}
