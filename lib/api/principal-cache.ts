import { createHash } from "node:crypto";
import { authenticate } from "@/lib/auth/authenticate";
import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";

/**
 * API-key principals remembered for a moment, so a client sending many requests pays the key
 * lookup (a database round trip, the largest cost of a cached /v1/rates answer) a few times per
 * second instead of on every request. The window is short enough that a revoked key or a new
 * rate card version is seen within it. Only successes are remembered; bad keys always hit the
 * lookup (and are refused by checksum before it). Session cookies are not cached.
 */
export const PRINCIPAL_TTL_MS = 200;
const MAX_ENTRIES = 10_000;

interface Entry {
  expiresAt: number;
  principal: Promise<Principal>;
}

const GLOBAL_KEY = Symbol.for("callbook.principal-cache");
function cache(): Map<string, Entry> {
  const g = globalThis as typeof globalThis & { [GLOBAL_KEY]?: Map<string, Entry> };
  return (g[GLOBAL_KEY] ??= new Map());
}

export async function authenticateCached(request: Request, db: Executor, nowMs = Date.now()): Promise<Principal> {
  const authorization = request.headers.get("authorization");
  if (authorization === null || PRINCIPAL_TTL_MS <= 0) return authenticate(request, db);
  // Keyed by a digest: the secret itself is not kept in memory longer than the request.
  const key = createHash("sha256").update(authorization).digest("base64url");
  const entries = cache();
  const hit = entries.get(key);
  if (hit && hit.expiresAt > nowMs) return hit.principal;
  // Concurrent requests with the same key share one lookup.
  const principal = authenticate(request, db);
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, { expiresAt: nowMs + PRINCIPAL_TTL_MS, principal });
  principal.catch(() => {
    if (entries.get(key)?.principal === principal) entries.delete(key);
  });
  return principal;
}

/** Forgets every remembered principal (tests; after revoking keys in this process). */
export function clearPrincipalCache(): void {
  cache().clear();
}
