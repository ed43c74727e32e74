import { desc, eq } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import type { Executor } from "@/lib/db/client";
import { apiKeys, apiKeyUses } from "@/lib/db/schema";
import type { ApiKey, ApiKeyList } from "./schemas";
import { visibleKeys } from "./visible-keys";

export const apiKeyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.displayPrefix,
  scopes: apiKeys.scopes,
  billingGroupId: apiKeys.billingGroupId,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeyUses.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

type KeyRow = { [K in keyof typeof apiKeyColumns]: (typeof apiKeyColumns)[K]["_"]["data"] | null };

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A key as /v1 shows it: never its secret nor its hash. */
export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id!,
    name: row.name,
    prefix: row.prefix!,
    scopes: row.scopes as Scope[],
    billingGroupId: row.billingGroupId,
    createdAt: row.createdAt!.toISOString(),
    expiresAt: iso(row.expiresAt),
    lastUsedAt: iso(row.lastUsedAt),
    revokedAt: iso(row.revokedAt),
  };
}

/** The keys a principal may manage (its group's; a platform principal's: all, or one group's), newest first. */
export async function listApiKeys(db: Executor, principal: Principal, account?: string): Promise<ApiKeyList> {
  const rows = await db
    .select(apiKeyColumns)
    .from(apiKeys)
    .leftJoin(apiKeyUses, eq(apiKeyUses.keyId, apiKeys.id))
    .where(visibleKeys(principal, account))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return { apiKeys: rows.map(toApiKey) };
}
