import { randomBytes } from "node:crypto";
import { ensureHistorySchema, openHistoryStore, type HistoryStore } from "../history-store";

/** The ClickHouse the history tests use (.ci/run starts Debian's on 127.0.0.1:8123). */
export function testClickHouseUrl(): string {
  return process.env.TEST_CLICKHOUSE_URL || "http://127.0.0.1:8123";
}

/** A history store on a ClickHouse database of its own (created, with its calls table); drop() removes it. */
export async function openTestHistoryStore(): Promise<HistoryStore & { drop(): Promise<void> }> {
  const database = `cb_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const store = openHistoryStore({ url: testClickHouseUrl(), database });
  await ensureHistorySchema(store).catch((e: Error) => {
    throw new Error(
      `ClickHouse at ${testClickHouseUrl()} is needed by the history tests (.ci/run starts it): ${e.message}`,
    );
  });
  return {
    ...store,
    drop: async () => {
      await store.client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await store.close();
    },
  };
}
