import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import type { Db } from "@/lib/db/client";
import { processSingleton } from "@/lib/runtime/process-singleton";

// When a key was last used (docs/contract.md §13), kept cheap: a request never waits for it and never writes in its
// own transaction. Each process writes a key's use at most once a minute (the first use in a minute is written, the
// others of that minute are not), in the background, as its own statement on api_key_uses, a table of its own so
// that it never NOTIFYs the principal caches (every UPDATE of api_keys does). lastUsedAt is therefore exact to the
// minute: a use may be up to a minute later than it says. A failed write is dropped: the next minute's use writes.

export const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_TRACKED_KEYS = 10_000;

const written = () => processSingleton("key-last-used", () => new Map<string, number>());

/**
 * Notes a use of a key by a request (a key's own, or a portal session opened with one). Returns at once; the write (if
 * this minute has none yet) runs in the background. Returns the write's promise for tests, which may wait on it. A
 * person's session uses no key (its keyId is the person's): nothing to note.
 */
export function noteKeyUse(
  db: Db,
  principal: Pick<Principal, "via" | "keyId">,
  now = Date.now(),
): Promise<void> | null {
  if (principal.via === "user_session") return null;
  const keyId = principal.keyId;
  const map = written();
  const last = map.get(keyId);
  if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return null;
  if (map.size >= MAX_TRACKED_KEYS) map.clear();
  map.set(keyId, now);
  const at = new Date(now).toISOString();
  // GREATEST: another process's later write is never replaced by an earlier one. A key deleted meanwhile fails the
  // foreign key: nothing to record.
  return db
    .execute(
      sql`INSERT INTO api_key_uses (key_id, last_used_at) VALUES (${keyId}, ${at})
        ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_uses.last_used_at, EXCLUDED.last_used_at)`,
    )
    .then(
      () => undefined,
      () => {
        if (map.get(keyId) === now) map.delete(keyId);
      },
    );
}
