import { auditActorOf } from "@/lib/audit/actor";
import type { Principal } from "@/lib/auth/principal";
import { ownGroup, reachOf, resolveAccount } from "@/lib/auth/reach";
import type { Scope } from "@/lib/auth/scopes";
import type { Db } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { eq } from "drizzle-orm";
import { createKeyAudited, keySnapshot } from "./create-key-audited";
import type { CreateApiKeyRequest, CreatedApiKeyBody } from "./schemas";

function invalid(param: string, message: string): ApiError {
  return new ApiError("invalid_request_body", `${param} ${message}.`, [{ param, message }]);
}

/**
 * POST /v1/api-keys (docs/contract.md §13): a key made by a key (or a portal session), never wider than its maker:
 * every scope asked for is one the caller holds (403 `insufficient_scope` naming the others), in the caller's group
 * (a platform caller may name one), expiring no later than the caller's own key. The key and its audit event
 * (`api_key.created`) commit together. The answer holds the secret, which is never shown again.
 */
export async function createOwnApiKey(
  db: Db,
  principal: Principal,
  request: CreateApiKeyRequest,
  address: string | null,
  now = new Date(),
): Promise<CreatedApiKeyBody> {
  const scopes = [...new Set(request.scopes)] as Scope[];
  const wider = scopes.filter((scope) => !principal.scopes.has(scope));
  if (wider.length > 0) {
    const named = wider.map((s) => `\`${s}\``).join(", ");
    throw new ApiError(
      "insufficient_scope",
      `A key cannot be given scopes its creator does not hold: ${named}.`,
      wider.map((scope) => ({ param: "scopes", message: `\`${scope}\` is not held by the calling key` })),
    );
  }

  const reach = reachOf(principal);
  const resolved = resolveAccount(reach, request.billingGroupId);
  if ("outside" in resolved) {
    throw new ApiError("insufficient_scope", "A key of a billing group creates keys of that group only.", [
      { param: "billingGroupId", message: "must be the calling key's own group, or absent" },
    ]);
  }
  const billingGroupId = resolved.account;

  let expiresAt = request.expiresAt == null ? null : new Date(request.expiresAt);
  if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) throw invalid("expiresAt", "must be in the future");
  const own = principal.keyExpiresAt ?? null;
  if (own !== null) {
    // An expiring key cannot outlive itself through a key it makes.
    if (expiresAt === null) expiresAt = new Date(own);
    else if (expiresAt.getTime() > own) {
      throw invalid("expiresAt", `must not be after the calling key's own expiry (${new Date(own).toISOString()})`);
    }
  }

  return db.transaction(async (tx) => {
    // A group a platform caller names must exist; the caller's own does.
    if (billingGroupId !== null && billingGroupId !== ownGroup(reach)) {
      const [group] = await tx
        .select({ id: billingGroups.id })
        .from(billingGroups)
        .where(eq(billingGroups.id, billingGroupId));
      if (!group) throw invalid("billingGroupId", "names no billing group");
    }
    const created = await createKeyAudited(
      tx,
      { scopes, billingGroupId, name: request.name, expiresAt },
      auditActorOf(principal),
      address,
    );
    const shown = { ...keySnapshot(created), lastUsedAt: null, revokedAt: null };
    return { ...shown, secret: created.key };
  });
}
