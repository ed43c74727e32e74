import type { Pool, PoolClient } from "pg";
import { isDatabaseUnavailable } from "@/lib/db/errors";

/**
 * drizzle-orm (0.45) sends BEGIN before its try/finally, so when a transaction's connection dies
 * at that moment (pg_terminate_backend, a restart, network loss) the client is never released:
 * the pool shrinks by one each time until every request waits for a connection that never comes.
 * Clients handed out by `pool.connect()` here release themselves (as broken, so the pool drops
 * them) as soon as a query fails because the connection is gone; later releases are no-ops.
 */
export function releaseDeadClients(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  // pg-pool's own pool.query uses the callback form and releases correctly: leave it alone.
  pool.connect = ((callback?: unknown) =>
    callback ? connect(callback) : (connect() as Promise<PoolClient>).then(selfReleasing)) as Pool["connect"];
}

// The pool reuses clients: query is wrapped once per client (wrapping it at every checkout would
// stack one more layer per checkout, making every query slower the longer the process runs).
const queryWrapped = new WeakSet<PoolClient>();

function selfReleasing(client: PoolClient): PoolClient {
  // pg-pool assigns a fresh release() at every checkout: make this checkout's idempotent.
  const release = client.release.bind(client);
  let released = false;
  client.release = (err?: Error | boolean) => {
    if (released) return;
    released = true;
    release(err);
  };
  if (!queryWrapped.has(client)) {
    queryWrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((e: unknown) => {
          // client.release is the current checkout's: a dead connection goes back as broken.
          if (isDatabaseUnavailable(e)) client.release(e instanceof Error ? e : true);
        });
      }
      return result;
    }) as PoolClient["query"];
  }
  return client;
}
