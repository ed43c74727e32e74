import type { Db } from "@/lib/db/client";
import { processSingleton } from "@/lib/runtime/process-singleton";
import type { Principal } from "./principal";

// Principals of live keys, per process, so the /v1 hot path does not read api_keys on every request.
// Correctness rests on invalidation, not on expiry: triggers (lib/auth/triggers.ts, migrations 0002 and 0003) make
// PostgreSQL (and PGlite) NOTIFY `callbook_auth` when a key is revoked or deleted, a portal session ends or is
// deleted, or a group's rate card version changes, whichever process made the change, and every cache LISTENs and
// drops everything it holds. These are the only triggers on auth's tables (api_keys, portal_sessions).
// - The cache serves nothing until its LISTEN is in place, and nothing while the listening
//   connection is down (it reconnects), so a missed notification can never leave a revoked key alive.
// - A lookup that raced with an invalidation is not stored (generation check).
// - On PGlite the notification is delivered before the revoking statement returns; on PostgreSQL it
//   is sent at commit, before the revoking client sees its COMMIT acknowledged.
// The TTL only bounds how long an entry may outlive a silently dead connection.

export const AUTH_CHANNEL = "callbook_auth";
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

interface Entry {
  principal: Principal;
  expires: number;
}

export interface PrincipalCache {
  get(key: string): Principal | undefined;
  /** The value of generation() to pass to set(): read it before the database lookup. */
  generation(): number;
  set(key: string, principal: Principal, generationBeforeLookup: number): void;
  /** Drops every entry (a notification, or a local change the caller knows of). */
  invalidate(): void;
  /** True once the LISTEN is active; false while (re)connecting. */
  readonly active: boolean;
}

class ListeningCache implements PrincipalCache {
  private entries = new Map<string, Entry>();
  private gen = 0;
  active = false;

  get(key: string): Principal | undefined {
    if (!this.active) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < performance.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  generation(): number {
    return this.gen;
  }

  set(key: string, principal: Principal, generationBeforeLookup: number): void {
    if (!this.active || generationBeforeLookup !== this.gen) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { principal, expires: performance.now() + TTL_MS });
  }

  invalidate(): void {
    this.gen++;
    this.entries.clear();
  }

  setActive(active: boolean): void {
    this.invalidate();
    this.active = active;
  }
}

interface PgliteLike {
  listen(channel: string, callback: (payload: string) => void): Promise<unknown>;
}
interface PoolLike {
  options: object;
  ending?: boolean;
  ended?: boolean;
}

/** One cache per database handle and process (every route chunk shares it). */
const caches = () => processSingleton("principal-caches", () => new WeakMap<object, ListeningCache>());

/**
 * The principal cache of a database handle, created (and its LISTEN started) on first use.
 * Until the LISTEN is confirmed it serves nothing, so the first requests read the database.
 */
export function principalCacheFor(db: Db): PrincipalCache {
  const map = caches();
  let cache = map.get(db);
  if (!cache) {
    cache = new ListeningCache();
    map.set(db, cache);
    startListening(db, cache);
  }
  return cache;
}

/**
 * Drops this process's cached principals of a database handle, if it has a cache: a change this process committed
 * (a key revoked) is then refused by its next request at once, without waiting for its own NOTIFY to come back on the
 * listening connection (on PostgreSQL that arrives asynchronously). Other processes drop theirs on the NOTIFY.
 */
export function invalidateLocalPrincipals(db: Db): void {
  caches().get(db)?.invalidate();
}

function startListening(db: Db, cache: ListeningCache): void {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client && typeof (client as PgliteLike).listen === "function") {
    // PGlite: one process owns the database, so every change passes through this instance.
    (client as PgliteLike)
      .listen(AUTH_CHANNEL, () => cache.invalidate())
      .then(() => cache.setActive(true))
      .catch(() => cache.setActive(false));
    return;
  }
  if (client && typeof (client as PoolLike).options === "object") {
    void listenPostgres(client as PoolLike, cache);
  }
  // Anything else: the cache stays inactive and every request reads the database.
}

async function listenPostgres(pool: PoolLike, cache: ListeningCache): Promise<void> {
  if (pool.ending || pool.ended) return;
  const pg = (await import("pg")).default;
  // A dedicated connection outside the pool: LISTEN is per session.
  const listener = new pg.Client(pool.options as ConstructorParameters<typeof pg.Client>[0]);
  let down = false;
  const onDown = () => {
    if (down) return;
    down = true;
    cache.setActive(false);
    listener.end().catch(() => undefined);
    if (!pool.ending && !pool.ended) setTimeout(() => void listenPostgres(pool, cache), RECONNECT_MS).unref();
  };
  listener.on("error", onDown);
  listener.on("end", onDown);
  listener.on("notification", (message) => {
    if (message.channel === AUTH_CHANNEL) cache.invalidate();
  });
  try {
    await listener.connect();
    // The listening socket must not keep a finished process (CLI, tests) alive.
    (listener as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    await listener.query(`LISTEN ${AUTH_CHANNEL}`);
    if (!down) cache.setActive(true);
  } catch {
    onDown();
  }
}
