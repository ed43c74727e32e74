import type { Logger } from "drizzle-orm/logger";
import type { Db, DbHandle } from "@/lib/db/client";
import * as schema from "@/lib/db/schema";
import type { Engine } from "./engines";

export interface RecordedStatement {
  /** The label of `during` that was running, "" outside it. */
  phase: string;
  query: string;
  params: unknown[];
}

/**
 * The same database (the same client) through a Drizzle instance that records every statement it sends, for tests
 * that check what a domain function asks the database: which statements, or their plans run again under EXPLAIN.
 */
export async function recordingDb(handle: DbHandle, engine: Engine) {
  const log: RecordedStatement[] = [];
  let phase = "";
  const logger: Logger = { logQuery: (query, params) => void log.push({ phase, query, params }) };
  const client = (handle.db as unknown as { $client: never }).$client;
  const db =
    engine === "pglite"
      ? (await import("drizzle-orm/pglite")).drizzle({ client, schema, logger })
      : (await import("drizzle-orm/node-postgres")).drizzle({ client, schema, logger });
  return {
    db: db as unknown as Db,
    log,
    /** Runs `run` with its statements labelled `name`. */
    async during<T>(name: string, run: () => Promise<T>): Promise<T> {
      phase = name;
      try {
        return await run();
      } finally {
        phase = "";
      }
    },
  };
}
