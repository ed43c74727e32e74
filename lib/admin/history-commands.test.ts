import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { queryRows, type DbHandle } from "@/lib/db/client";
import { openTestHistoryStore, testClickHouseUrl } from "@/lib/history/testing/history-test-store";
import { MOVE_AFTER, NOW, seed } from "@/lib/testing/history-months";
import { openTestDb } from "@/lib/testing/engines";
import { sql } from "drizzle-orm";
import type { ProgressEvent } from "@/lib/runtime/progress";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

describe("admin: history move", () => {
  let handle: DbHandle;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    handle = await openTestDb("pglite");
    store = await openTestHistoryStore();
    await seed(handle.db);
  });
  afterAll(async () => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    await handle?.close();
    await store?.drop();
  });

  it("needs HISTORY_CLICKHOUSE_URL", async () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "");
    await expect(runAdminCommand(handle.db, ["history", "move"])).rejects.toThrow(UsageError);
  });

  it("moves every month old enough, with progress, and refuses a named month that is not", async () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", `${testClickHouseUrl()}/${store.database}`);
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", String(MOVE_AFTER));
    const events: ProgressEvent[] = [];
    const result = await runAdminCommand(handle.db, ["history", "move"], (e) => events.push(e));
    expect(result).toEqual({
      now: new Date(NOW).toISOString(),
      months: [expect.objectContaining({ month: "2030-11", state: "removed", calls: "5" })],
    });
    expect(events.filter((e) => e.phase === "copying 2030-11").at(-1)).toEqual({
      phase: "copying 2030-11",
      done: 5,
      total: 5,
    });
    expect(await queryRows(handle.db, sql`SELECT state FROM history_moves`)).toEqual([{ state: "removed" }]);
    await expect(runAdminCommand(handle.db, ["history", "move", "--month", "2030-12"])).rejects.toThrow(
      /2030-12 refused: it is not 3 whole months old/,
    );
    await expect(runAdminCommand(handle.db, ["history", "move", "--month", "2030-13"])).rejects.toThrow(UsageError);
    // Re-rating cannot reach a moved month: refused, naming where it may start.
    const rerate = await runAdminCommand(handle.db, ["rerate", "--since", "2030-11-15"]).catch((e: unknown) => e);
    expect(rerate).toBeInstanceOf(UsageError);
    expect((rerate as Error).message).toMatch(
      /^--since reaches 2030-11, moved to the history tier.*--since 2030-12-01T00:00:00.000Z or later/,
    );
    expect(await runAdminCommand(handle.db, ["rerate", "--since", "2030-12-01"])).toMatchObject({
      since: "2030-12-01T00:00:00.000Z",
      rerated: 0,
    });
  });

  it("history retain: needs HISTORY_RETENTION_MONTHS, then drops the moved months past it", async () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", `${testClickHouseUrl()}/${store.database}`);
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", String(MOVE_AFTER));
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "");
    await expect(runAdminCommand(handle.db, ["history", "retain"])).rejects.toThrow(
      /HISTORY_RETENTION_MONTHS is not set/,
    );
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "2");
    await expect(runAdminCommand(handle.db, ["history", "retain"])).rejects.toThrow(
      /HISTORY_RETENTION_MONTHS must be .* at least HISTORY_MOVE_AFTER_MONTHS/,
    );
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "3");
    expect(await runAdminCommand(handle.db, ["history", "retain", "--now", "2031-02-01"])).toEqual({
      now: "2031-02-01T00:00:00.000Z",
      retentionMonths: 3,
      keptFrom: "2030-11",
      dropped: [],
    });
    expect(await runAdminCommand(handle.db, ["history", "retain"])).toEqual({
      now: new Date(NOW).toISOString(),
      retentionMonths: 3,
      keptFrom: "2030-12",
      dropped: [{ month: "2030-11", calls: "5" }],
    });
    expect(await queryRows(handle.db, sql`SELECT state FROM history_moves`)).toEqual([{ state: "dropped" }]);
    // A dropped month is never moved again: nothing left to move.
    expect(await runAdminCommand(handle.db, ["history", "move"])).toMatchObject({ months: [] });
  });
});
