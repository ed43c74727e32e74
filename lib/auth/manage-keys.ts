import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, Executor } from "@/lib/db/client";
import { apiKeys } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";
import { displayPrefix, generateApiKeySecret, hashApiKey } from "./api-key-format";
import { endSessionsOfKey } from "./portal-sessions";
import { invalidateLocalPrincipals } from "./principal-cache";
import type { Scope } from "./scopes";

export interface CreatedApiKey {
  id: string;
  /** The secret: shown once, here, never stored. */
  key: string;
  /** What may be shown of it later (`ck_AbC123…`). */
  prefix: string;
  name: string | null;
  scopes: Scope[];
  billingGroupId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
}

/** Creates a key. On a transaction (`db`), it exists when that commits: with its audit event (lib/keys). */
export async function createApiKey(
  db: Executor,
  options: { scopes: Scope[]; billingGroupId?: string | null; name?: string; expiresAt?: Date | null },
): Promise<CreatedApiKey> {
  const secret = generateApiKeySecret();
  const id = newId("key");
  const [row] = await db
    .insert(apiKeys)
    .values({
      id,
      displayPrefix: displayPrefix(secret),
      hash: hashApiKey(secret),
      scopes: options.scopes,
      billingGroupId: options.billingGroupId ?? null,
      name: options.name ?? null,
      expiresAt: options.expiresAt ?? null,
    })
    .returning({ createdAt: apiKeys.createdAt });
  return {
    id,
    key: secret,
    prefix: displayPrefix(secret),
    name: options.name ?? null,
    scopes: options.scopes,
    billingGroupId: options.billingGroupId ?? null,
    createdAt: row.createdAt,
    expiresAt: options.expiresAt ?? null,
  };
}

/**
 * Revokes a key and ends its portal sessions, in the caller's transaction; false when no live key has that id.
 * The revocation NOTIFYs every process's principal cache (lib/auth/triggers.ts) when the transaction commits; the
 * caller then drops its own process's at once (invalidateLocalPrincipals), as revokeApiKey does.
 */
export async function revokeApiKeyIn(tx: Executor, id: string): Promise<boolean> {
  const rows = await tx
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) return false;
  await endSessionsOfKey(tx, id);
  return true;
}

/** Revokes a key and ends its portal sessions; returns false when no live key has that id. */
export async function revokeApiKey(db: Db, id: string): Promise<boolean> {
  const revoked = await db.transaction((tx) => revokeApiKeyIn(tx, id));
  if (revoked) invalidateLocalPrincipals(db);
  return revoked;
}
