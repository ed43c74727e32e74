import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { isPersonSessionId } from "./find-key";
import { createSessionToken, SESSION_TTL_SECONDS } from "./session-token";

// Server-side portal sessions (table portal_sessions, migration 0003). The cookie carries a signed
// token naming the session; signing out or revoking the key ends the row, so a copied cookie stops
// working at once instead of living out its 12 hours. Ending a session NOTIFYs callbook_auth, which
// drops every process's cached principals.

export interface OpenedSession {
  id: string;
  /** The cookie value. */
  token: string;
  expiresAt: Date;
}

function newSessionId(): string {
  return `ses_${randomBytes(24).toString("base64url")}`;
}

/** Opens a session for a key (the caller has checked the key and its scopes). */
export async function createPortalSession(db: Executor, keyId: string, now = new Date()): Promise<OpenedSession> {
  const id = newSessionId();
  const expiresAtSeconds = Math.floor(now.getTime() / 1000) + SESSION_TTL_SECONDS;
  const expiresAt = new Date(expiresAtSeconds * 1000);
  await db.execute(sql`INSERT INTO portal_sessions (id, key_id, created_at, expires_at)
    VALUES (${id}, ${keyId}, ${now.toISOString()}, ${expiresAt.toISOString()})`);
  await purgeExpiredSessions(db, keyId);
  return { id, token: createSessionToken(id, expiresAtSeconds), expiresAt };
}

/** Ends one session (sign-out). Returns false when it was unknown or already ended. */
export async function endPortalSession(db: Executor, sessionId: string): Promise<boolean> {
  if (isPersonSessionId(sessionId)) {
    // A person's session (lib/people) is better-auth's row: deleting it ends it (and NOTIFYs, migration 0014).
    const ended = await queryRows<{ id: string }>(
      db,
      sql`DELETE FROM auth_sessions WHERE id = ${sessionId} RETURNING id`,
    );
    return ended.length > 0;
  }
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE portal_sessions SET ended_at = now() WHERE id = ${sessionId} AND ended_at IS NULL RETURNING id`,
  );
  return rows.length > 0;
}

/** Ends every open session of a key (its revocation). */
export async function endSessionsOfKey(db: Executor, keyId: string): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE portal_sessions SET ended_at = now() WHERE key_id = ${keyId} AND ended_at IS NULL RETURNING id`,
  );
  return rows.length;
}

/**
 * Drops a key's sessions that expired more than a day ago, so the table does not grow with every
 * sign-in. Looked up first: the DELETE trigger notifies (and drops the principal caches) even when
 * it deletes nothing.
 */
async function purgeExpiredSessions(db: Executor, keyId: string): Promise<void> {
  const stale = sql`key_id = ${keyId} AND expires_at < now() - interval '1 day'`;
  const [found] = await queryRows<{ n: number }>(db, sql`SELECT 1 AS n FROM portal_sessions WHERE ${stale} LIMIT 1`);
  if (found) await db.execute(sql`DELETE FROM portal_sessions WHERE ${stale}`);
}
