import { spawn } from "node:child_process";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CALL_COLUMNS, toStoredCall, type StoredCall } from "@/lib/calls/stored-call";
import { openDatabase, queryRows, type Db, type DbHandle } from "@/lib/db/client";
import { CdrRejectedError, ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createTestDatabase, POSTGRES_TEMPLATE_ENV } from "@/lib/testing/engines";
import { callsTable, historyRowToStoredCall, type HistoryStore } from "./history-store";
import { HistoryMoveRefusedError, moveMonth, moveRefusals, type MoveStep } from "./move-month";
import type { MoveChildArgs } from "./testing/move-child";
import { openTestHistoryStore, testClickHouseUrl } from "./testing/history-test-store";
import { billedRows, ISSUER, MOVE_AFTER, NOVEMBER, NOW, seed } from "@/lib/testing/history-months";

// The history tier's move of a month (docs/contract.md "History tier"): November 2030 moves, its calls identical in
// ClickHouse and gone from PostgreSQL, with rollups, ledger and invoices as they were; a move killed at any step
// resumes without a duplicate or a loss; two movers move a month once.
const pgCalls = async (db: Db, where = sql`true`): Promise<StoredCall[]> =>
  (await queryRows<Record<string, unknown>>(db, sql`SELECT ${CALL_COLUMNS} FROM calls WHERE ${where} ORDER BY id`)).map(
    toStoredCall,
  );

const historyCalls = async (store: HistoryStore): Promise<StoredCall[]> => {
  const result = await store.client.query({
    query: `SELECT * FROM ${callsTable(store)} ORDER BY id`,
    format: "JSONEachRow",
  });
  return (await result.json<Record<string, unknown>>()).map(historyRowToStoredCall);
};

const billed = (db: Db) => billedRows(db);

const inNovember = sql`start_time >= '2030-11-01T00:00:00Z' AND start_time < '2030-12-01T00:00:00Z'`;

describeOnEngines("moving a month to the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;
  let cutDayUuid: string;
  let groupIds: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    ({ cutDayUuid, groupIds } = await seed(db()));
  });
  afterAll(async () => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    await store?.drop();
  });

  it("refuses a month not old enough, or with a note run pending, and changes nothing", async () => {
    const error = await moveMonth(db(), store, {
      month: new Date("2030-12-01T00:00:00Z"),
      moveAfterMonths: MOVE_AFTER,
      now: new Date(NOW),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HistoryMoveRefusedError);
    expect((error as HistoryMoveRefusedError).reasons).toEqual([expect.stringMatching(/not 3 whole months old/)]);
    await db().execute(sql`INSERT INTO invoice_recheck_marks (billing_group_id, day)
                           SELECT id, '2030-10-20T00:00:00Z' FROM billing_groups`);
    expect(await moveRefusals(db(), new Date("2030-10-01T00:00:00Z"), MOVE_AFTER, new Date(NOW))).toEqual([
      expect.stringMatching(/a note run is pending/),
    ]);
    await runInvoices(db(), { now: new Date(NOW), issuer: ISSUER });
    expect(await moveRefusals(db(), new Date("2030-10-01T00:00:00Z"), MOVE_AFTER, new Date(NOW))).toEqual([]);
    expect(await queryRows(db(), sql`SELECT * FROM history_moves`)).toEqual([]);
    expect(await historyCalls(store)).toEqual([]);
  });

  it("copies, verifies and removes a month: identical in ClickHouse, gone from calls, billing untouched", async () => {
    const before = await billed(db());
    const november = await pgCalls(db(), inNovember);
    expect(november).toHaveLength(6);
    const progress: number[] = [];
    const result = await moveMonth(db(), store, {
      month: NOVEMBER,
      moveAfterMonths: MOVE_AFTER,
      now: new Date(NOW),
      batchSize: 2,
      progress: (e) => e.phase.startsWith("copying") && progress.push(e.done),
    });
    const moved = november.filter((c) => c.uuid !== cutDayUuid);
    const sum = (pick: (c: StoredCall) => bigint | number) =>
      moved.reduce((s, c) => s + BigInt(pick(c)), 0n).toString();
    expect(result).toEqual({
      month: "2030-11",
      state: "removed",
      calls: "5",
      priceMicros: sum((c) => c.priceMicros),
      buyCostMicros: sum((c) => c.buyCostMicros ?? 0n),
      billedSeconds: sum((c) => c.billDuration),
    });
    // Batches of 2 calls on (start_time, id), of which the archivable are copied: the first holds the cut day's call.
    expect(progress).toEqual([0, 1, 3, 5]);
    expect(await historyCalls(store)).toEqual(moved);
    expect((await pgCalls(db(), inNovember)).map((c) => c.uuid)).toEqual([cutDayUuid]);
    expect(await billed(db())).toEqual(before);
    expect(await runInvoices(db(), { now: new Date(NOW), issuer: ISSUER })).toMatchObject({ invoices: 0, notes: 0 });
    const [move] = await queryRows<{ state: string; copied: string; calls: string }>(
      db(),
      sql`SELECT state, copied_calls::text AS copied, calls::text AS calls FROM history_moves`,
    );
    expect(move).toEqual({ state: "removed", copied: "5", calls: "5" });
    // Once removed, a month is done: moving it again changes nothing.
    expect(await moveMonth(db(), store, { month: NOVEMBER, moveAfterMonths: MOVE_AFTER, now: new Date(NOW) })).toEqual(
      result,
    );
    expect(await historyCalls(store)).toEqual(moved);
  });
  it("refuses a late CDR of a moved month at ingest, only with the history tier on", async () => {
    const cdr = (uuid: string, at: string) =>
      answeredCdr({ uuid, billingGroupId: groupIds[0], startMs: Date.parse(at), seconds: 60, to: "12125550100" });
    const batch = [cdr("late-dec", "2030-12-20T12:00:00Z"), cdr("late-nov", "2030-11-20T12:00:00Z")];
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", `${testClickHouseUrl()}/${store.database}`);
    const error = await ingestCdrs(db(), batch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdrRejectedError);
    expect(error).toMatchObject({
      index: 1,
      field: "startTime",
      message: "the call starts in 2030-11, a month moved to the history tier: a late CDR for a moved month is refused",
    });
    expect(await pgCalls(db(), sql`uuid LIKE 'late-%'`)).toEqual([]);
    // Off: stored as before the history tier existed.
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "");
    expect((await ingestCdrs(db(), batch)).map((o) => o.status)).toEqual(["created", "created"]);
  });
});

// A month none of whose calls stays (no cut day holds one): its partition is emptied whole.
describeOnEngines("moving a whole month to the history tier", (handle) => {
  const db = () => handle().db;
  let store: Awaited<ReturnType<typeof openTestHistoryStore>>;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    store = await openTestHistoryStore();
    await seed(db());
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.drop();
  });

  it("empties a month whose every call moved by TRUNCATE of its partition, billing untouched", async () => {
    // December: one call of the UTC group, on no cut day (New York's cut days there hold no call).
    const before = await billed(db());
    const december = sql`start_time >= '2030-12-01T00:00:00Z' AND start_time < '2031-01-01T00:00:00Z'`;
    const calls = await pgCalls(db(), december);
    expect(calls).toHaveLength(1);
    const fileNode = async () =>
      (await queryRows<{ f: string }>(db(), sql`SELECT pg_relation_filenode('calls_p203012')::text AS f`))[0].f;
    const node = await fileNode();
    const result = await moveMonth(db(), store, {
      month: new Date("2030-12-01Z"),
      moveAfterMonths: 2,
      now: new Date(NOW),
    });
    expect(result).toMatchObject({ month: "2030-12", state: "removed", calls: "1" });
    expect(await pgCalls(db(), december)).toEqual([]);
    // A TRUNCATE gives the partition a new file; a row DELETE would have kept it.
    expect(await fileNode()).not.toBe(node);
    expect((await historyCalls(store)).filter((c) => c.startTime >= new Date("2030-12-01Z"))).toEqual(calls);
    expect(await billed(db())).toEqual(before);
    expect(await runInvoices(db(), { now: new Date(NOW), issuer: ISSUER })).toMatchObject({ invoices: 0, notes: 0 });
  });
});

// kill -9 at each step, then a rerun; and two movers at once. PostgreSQL only: the movers are processes of their own.
describe("moving a month, killed at any step, on postgres", () => {
  const ROOT = path.resolve(__dirname, "../..");
  const CHILD = path.join(__dirname, "testing/move-child.ts");
  let template: { url: string; drop: () => Promise<void> };
  let expected: StoredCall[];
  let billedBefore: { t: string; row: string }[];

  const open = (url: string): Promise<DbHandle> => openDatabase({ url });
  /** Runs the mover in a child; answers its exit signal (SIGKILL when it died at `dieAfter`) and its output. */
  const runChild = (args: MoveChildArgs) =>
    new Promise<{ signal: NodeJS.Signals | null; code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(args)], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.on("exit", (code, signal) => resolve({ code, signal, out }));
    });

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(NOW));
    template = await createTestDatabase(process.env[POSTGRES_TEMPLATE_ENV] || undefined);
    const seeded = await open(template.url);
    const { cutDayUuid } = await seed(seeded.db);
    expected = (await pgCalls(seeded.db, inNovember)).filter((c) => c.uuid !== cutDayUuid);
    billedBefore = await billed(seeded.db);
    await seeded.close();
    vi.useRealTimers();
  });
  afterAll(async () => {
    await template?.drop();
  });

  /** A copy of the seeded database and an empty ClickHouse database, for one scenario. */
  async function scenario(
    run: (url: string, store: HistoryStore, base: Omit<MoveChildArgs, "dieAfter">) => Promise<void>,
  ) {
    const database = await createTestDatabase(new URL(template.url).pathname.slice(1));
    const store = await openTestHistoryStore();
    try {
      await run(database.url, store, {
        databaseUrl: database.url,
        clickhouseUrl: testClickHouseUrl(),
        clickhouseDatabase: store.database,
        month: NOVEMBER.toISOString(),
        now: new Date(NOW).toISOString(),
        moveAfterMonths: MOVE_AFTER,
        batchSize: 2,
      });
    } finally {
      await store.drop();
      await database.drop();
    }
  }

  /** The end every scenario must reach: each call once in ClickHouse, none left in November but the cut day's. */
  async function expectMovedOnce(url: string, store: HistoryStore) {
    expect(await historyCalls(store)).toEqual(expected);
    const handle = await open(url);
    try {
      expect((await pgCalls(handle.db, inNovember)).map((c) => c.uuid)).toEqual(["move-3"]);
      expect(await billed(handle.db)).toEqual(billedBefore);
      expect(await queryRows(handle.db, sql`SELECT state FROM history_moves`)).toEqual([{ state: "removed" }]);
    } finally {
      await handle.close();
    }
  }

  const STATE_AFTER: Record<MoveStep, string> = {
    started: "copying",
    batch: "copying",
    tiers: "copying",
    copied: "copied",
    verified: "verified",
    removed: "removed",
  };

  it.each(Object.keys(STATE_AFTER) as MoveStep[])("resumes after kill -9 after step %s", async (step) => {
    await scenario(async (url, store, base) => {
      const killed = await runChild({ ...base, dieAfter: step });
      expect(killed.signal).toBe("SIGKILL");
      const handle = await open(url);
      try {
        expect(await queryRows(handle.db, sql`SELECT state FROM history_moves`)).toEqual([
          { state: STATE_AFTER[step] },
        ]);
      } finally {
        await handle.close();
      }
      // Killed after its first insert, the copy is partial: a batch's range of 2 calls holds 1 or 2 archivable ones.
      if (step === "batch") expect((await historyCalls(store)).length).toBeOneOf([1, 2]);
      const rerun = await runChild(base);
      expect(rerun.code).toBe(0);
      expect(JSON.parse(rerun.out)).toMatchObject({ month: "2030-11", state: "removed", calls: "5" });
      await expectMovedOnce(url, store);
    });
  });

  it("two movers at once move the month once", async () => {
    await scenario(async (url, store, base) => {
      const [a, b] = await Promise.all([runChild(base), runChild(base)]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const states = [a, b].map((r) => (JSON.parse(r.out) as { state: string }).state).sort();
      // The second either found the month locked (busy) or, started after the first ended, already removed.
      expect(["busy,removed", "removed,removed"]).toContain(states.join(","));
      await expectMovedOnce(url, store);
    });
  });
});
