import { and, eq } from "drizzle-orm";
import { auditActorOf } from "@/lib/audit/actor";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { revokeApiKeyIn } from "@/lib/auth/manage-keys";
import type { Principal } from "@/lib/auth/principal";
import { invalidateLocalPrincipals } from "@/lib/auth/principal-cache";
import type { Db } from "@/lib/db/client";
import { apiKeys, apiKeyUses } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { apiKeyColumns, toApiKey } from "./list-keys";
import type { ApiKey } from "./schemas";
import { visibleKeys } from "./visible-keys";

/**
 * Revokes a key, ends its portal sessions and records `api_key.revoked`, in one transaction; the key as it is now,
 * and whether this call revoked it. Revoking a revoked key changes nothing and records nothing (DELETE is
 * idempotent). null: no such key among those
 * `reach` may manage (every key when undefined: the operator's CLI).
 */
export async function revokeKeyAudited(
  db: Db,
  id: string,
  actor: AuditActor,
  address: string | null,
  reach?: Principal,
): Promise<{ key: ApiKey; changed: boolean } | null> {
  const result = await db.transaction(async (tx) => {
    const select = () =>
      tx
        .select(apiKeyColumns)
        .from(apiKeys)
        .leftJoin(apiKeyUses, eq(apiKeyUses.keyId, apiKeys.id))
        .where(and(eq(apiKeys.id, id), reach ? visibleKeys(reach) : undefined));
    const [before] = await select();
    if (!before) return null;
    if (!(await revokeApiKeyIn(tx, id))) return { key: toApiKey(before), changed: false };
    const [after] = await select();
    await recordAuditEvent(tx, {
      actor,
      action: "api_key.revoked",
      billingGroupId: before.billingGroupId,
      targetType: "api_key",
      targetId: id,
      address,
      before: toApiKey(before),
      after: toApiKey(after),
    });
    return { key: toApiKey(after), changed: true };
  });
  // Refused by this process's next request at once; the others drop the key on the commit's NOTIFY.
  if (result?.changed) invalidateLocalPrincipals(db);
  return result;
}

/** DELETE /v1/api-keys/{id}: a key of the caller's reach (its group's; any for a platform caller), else 404. */
export async function revokeOwnApiKey(
  db: Db,
  principal: Principal,
  id: string,
  address: string | null,
): Promise<ApiKey> {
  // Ids are `key_` + base32; anything else never reaches the database.
  const revoked = /^[A-Za-z0-9_-]{1,64}$/.test(id)
    ? await revokeKeyAudited(db, id, auditActorOf(principal), address, principal)
    : null;
  if (!revoked) throw new ApiError("not_found", `No API key with id ${JSON.stringify(id.slice(0, 64))}.`);
  return revoked.key;
}
