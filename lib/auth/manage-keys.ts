import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { apiKeys } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";
import { displayPrefix, generateApiKeySecret, hashApiKey } from "./api-key-format";
import { endSessionsOfKey } from "./portal-sessions";
import type { Scope } from "./scopes";

export interface CreatedApiKey {
  id: string;
  /** The secret: shown once, here, never stored. */
  key: string;
  scopes: Scope[];
  billingGroupId: string | null;
}

export async function createApiKey(
  db: Db,
  options: { scopes: Scope[]; billingGroupId?: string | null; name?: string },
): Promise<CreatedApiKey> {
  const secret = generateApiKeySecret();
  const id = newId("key");
  await db.insert(apiKeys).values({
    id,
    displayPrefix: displayPrefix(secret),
    hash: hashApiKey(secret),
    scopes: options.scopes,
    billingGroupId: options.billingGroupId ?? null,
    name: options.name ?? null,
  });
  return { id, key: secret, scopes: options.scopes, billingGroupId: options.billingGroupId ?? null };
}

/** Revokes a key and ends its portal sessions; returns false when no live key has that id. */
export async function revokeApiKey(db: Db, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (rows.length === 0) return false;
    await endSessionsOfKey(tx, id);
    return true;
  });
}
