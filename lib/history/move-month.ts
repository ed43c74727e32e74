import { Readable } from "node:stream";
import { sql } from "drizzle-orm";
import { archivableCalls, archiveCalls, uninvoicedGroups, whileArchiving } from "@/lib/calls/archive-calls";
import { utcMonthStart } from "@/lib/db/call-partitions";
import { isEmbedded, queryRows, type Db, type Executor } from "@/lib/db/client";
import type { ProgressReporter } from "@/lib/runtime/progress";
import {
  callsTable,
  dropMonthPartition,
  ensureHistorySchema,
  insertSettings,
  HISTORY_CALL_COLUMNS,
  monthPartition,
  type HistoryStore,
} from "./history-store";
import { copyTierCharges, tierChargeDifferences } from "./history-tier-charges";

// Moving a UTC month of calls to the history tier, exactly once (docs/contract.md "History tier"): a state machine
// recorded in history_moves (migration 0028). copying -> copied -> verified -> removed, each step resumable after a
// crash at any point: a copy starts over (the month's ClickHouse partition is dropped first), a verification is read
// again, and the removal is one PostgreSQL transaction with the state change. One process per month at a time.

export type MoveState = "copying" | "copied" | "verified" | "removed" | "dropped";
/**
 * Where the mover may be stopped (tests kill it there): after each state commits, after a copy's first batch, and
 * after the tier charges' copy (calls and tier charges in ClickHouse, the state still copying).
 */
export type MoveStep = "started" | "batch" | "tiers" | "copied" | "verified" | "removed";

/** The month may not move (yet): each reason says why; nothing was changed. */
export class HistoryMoveRefusedError extends Error {
  constructor(
    readonly month: string,
    readonly reasons: string[],
  ) {
    super(`history move of ${month} refused: ${reasons.join("; ")}`);
    this.name = "HistoryMoveRefusedError";
  }
}

/** The two stores disagreed after copying the month again: nothing was removed; the next run copies again. */
export class HistoryVerifyError extends Error {
  constructor(
    readonly month: string,
    readonly differences: string[],
  ) {
    super(`history move of ${month}: ClickHouse and PostgreSQL disagree on ${differences.slice(0, 5).join(", ")}`);
    this.name = "HistoryVerifyError";
  }
}

export interface MoveMonthOptions {
  /** Any instant of the UTC month to move. */
  month: Date;
  /** A month moves once it ended at least this many whole months before the UTC month of `now`. */
  moveAfterMonths: number;
  now?: Date;
  /** Calls per ClickHouse insert (each one block, written whole or not at all). Default 50 000. */
  batchSize?: number;
  progress?: ProgressReporter;
  /** Called after each step; tests stop the process dead here. */
  onStep?: (step: MoveStep) => void | Promise<void>;
}

/** The totals of a month's moved calls, as verified in both stores (int8 as decimal text). */
export interface MoveTotals {
  calls: string;
  priceMicros: string;
  buyCostMicros: string;
  billedSeconds: string;
}

export type MoveMonthResult =
  | ({ month: string; state: "removed" | "dropped" } & MoveTotals)
  /** Another process is moving this month right now. */
  | { month: string; state: "busy" };

/** "2026-11" of a UTC month's first instant. */
export const monthLabel = (start: Date) => start.toISOString().slice(0, 7);

/** Verification mismatches tolerated in one run (each followed by a fresh copy) before giving up. */
const MAX_COPIES_PER_RUN = 2;

/**
 * Moves one UTC month's archivable calls (lib/calls/archive-calls.ts archivableCalls: invoiced, not on a UTC day an
 * invoice period cuts) to ClickHouse, verifies both stores agree per group and UTC day, then removes them from
 * PostgreSQL through archiveCalls (rollups, ledger and invoices untouched). Resumes where a previous run stopped.
 * Throws HistoryMoveRefusedError when the month is not eligible (moveRefusals), HistoryVerifyError when the stores
 * still disagree after copying again.
 */
export async function moveMonth(db: Db, store: HistoryStore, options: MoveMonthOptions): Promise<MoveMonthResult> {
  const start = new Date(utcMonthStart(options.month.getTime()));
  const end = new Date(utcMonthStart(start.getTime(), 1));
  const month = monthLabel(start);
  const step = async (s: MoveStep) => void (await options.onStep?.(s));
  const outcome = await withMonthLock(db, start, async (): Promise<MoveMonthResult> => {
    let move = await readMove(db, start);
    // Final states: a dropped month (retention, retain-months.ts) is not moved again either.
    if (move?.state === "removed" || move?.state === "dropped") return { month, state: move.state, ...move.totals };
    const reasons = await moveRefusals(db, start, options.moveAfterMonths, options.now ?? new Date());
    if (reasons.length > 0) throw new HistoryMoveRefusedError(month, reasons);
    await ensureHistorySchema(store);
    if (!move) {
      await db.execute(
        sql`INSERT INTO history_moves (month, state) VALUES (${start.toISOString()}::timestamptz, 'copying')
            ON CONFLICT (month) DO NOTHING`,
      );
      await step("started");
    }
    let copies = 0;
    for (;;) {
      move = (await readMove(db, start))!;
      if (move.state === "copying") {
        copies += 1;
        const copied = await copyMonth(db, store, start, end, options, () => step("batch"));
        // The moved calls' reseller tier charges go with them (history-tier-charges.ts), in the same copy state.
        await copyTierCharges(db, store, start, end);
        await step("tiers");
        await setState(db, start, "copying", "copied", sql`copied_calls = ${copied}, copied_at = now()`);
        await step("copied");
      } else if (move.state === "copied") {
        const checked = await verifyMonth(db, store, start, end, options.progress);
        const tiers = "differences" in checked ? [] : await tierChargeDifferences(db, store, start, end);
        const verified = tiers.length > 0 ? { differences: tiers } : checked;
        if ("differences" in verified) {
          await setState(db, start, "copied", "copying", sql`copied_calls = NULL, copied_at = NULL`);
          if (copies >= MAX_COPIES_PER_RUN) throw new HistoryVerifyError(month, verified.differences);
          continue;
        }
        const t = verified.totals;
        await setState(
          db,
          start,
          "copied",
          "verified",
          sql`calls = ${t.calls}::int8, price_micros = ${t.priceMicros}::int8, buy_cost_micros = ${t.buyCostMicros}::int8,
              billed_seconds = ${t.billedSeconds}::int8, verified_at = now()`,
        );
        await step("verified");
      } else if (move.state === "verified") {
        if (!(await removeMonth(db, store, start, end, move.totals))) {
          // Calls (or their tier charges) changed since the verification (a late CDR, a re-rating): copy again.
          await setState(
            db,
            start,
            "verified",
            "copying",
            sql`copied_calls = NULL, copied_at = NULL, verified_at = NULL`,
          );
          continue;
        }
        await step("removed");
        return { month, state: "removed", ...move.totals };
      } else {
        return { month, state: "removed", ...move.totals };
      }
    }
  });
  return outcome ?? { month, state: "busy" };
}

/**
 * Why a month may not move now (empty: it may). docs/contract.md "History tier": it ended at least `moveAfterMonths`
 * whole months before the current UTC month; no call of it is of a period not yet invoiced (archiveCalls' own
 * refusal); no note run is pending on a day of it (invoice_recheck_marks).
 */
export async function moveRefusals(db: Executor, month: Date, moveAfterMonths: number, now: Date): Promise<string[]> {
  const start = new Date(utcMonthStart(month.getTime()));
  const end = new Date(utcMonthStart(start.getTime(), 1));
  const reasons: string[] = [];
  const newest = new Date(utcMonthStart(now.getTime(), -moveAfterMonths));
  if (end > newest)
    reasons.push(
      `it is not ${moveAfterMonths} whole months old (HISTORY_MOVE_AFTER_MONTHS; months before ${monthLabel(newest)} move)`,
    );
  const uninvoiced = await uninvoicedGroups(db, { from: start, before: end });
  if (uninvoiced.length > 0)
    reasons.push(`calls of periods not yet invoiced (billing groups ${uninvoiced.join(", ")})`);
  const marked = await queryRows<{ id: string }>(
    db,
    sql`SELECT DISTINCT billing_group_id AS id FROM invoice_recheck_marks
        WHERE day >= ${start.toISOString()}::timestamptz AND day < ${end.toISOString()}::timestamptz ORDER BY 1`,
  );
  if (marked.length > 0)
    reasons.push(
      `a note run is pending on its days (billing groups ${marked.map((g) => g.id).join(", ")}): run the invoice run first`,
    );
  return reasons;
}

interface MoveRow {
  state: MoveState;
  totals: MoveTotals;
}

async function readMove(db: Executor, start: Date): Promise<MoveRow | undefined> {
  const [row] = await queryRows<{ state: MoveState; calls: string; price: string; buy: string; seconds: string }>(
    db,
    sql`SELECT state, coalesce(calls, 0)::text AS calls, coalesce(price_micros, 0)::text AS price,
               coalesce(buy_cost_micros, 0)::text AS buy, coalesce(billed_seconds, 0)::text AS seconds
        FROM history_moves WHERE month = ${start.toISOString()}::timestamptz`,
  );
  if (!row) return undefined;
  return {
    state: row.state,
    totals: { calls: row.calls, priceMicros: row.price, buyCostMicros: row.buy, billedSeconds: row.seconds },
  };
}

/** Moves the state on, from `from` only: a second writer (there is none under the lock) would change nothing. */
async function setState(db: Executor, start: Date, from: MoveState, to: MoveState, also: ReturnType<typeof sql>) {
  const rows = await queryRows(
    db,
    sql`UPDATE history_moves SET state = ${to}, ${also}
        WHERE month = ${start.toISOString()}::timestamptz AND state = ${from} RETURNING 1`,
  );
  if (rows.length !== 1) throw new Error(`history move of ${monthLabel(start)}: not in state ${from} any more`);
}

/** Advisory lock class of the history mover (its key: the month as 202611). */
const MOVE_LOCK_CLASS = 727_290;
/** The embedded engine has one process (its data directory lock): months being moved in it. */
const movingHere = new Set<number>();

/**
 * Runs `run` while no other process moves the month; undefined when another does. PostgreSQL: a transaction-level
 * advisory lock held by a transaction that does nothing else (no xid, no snapshot between statements, so it holds
 * back no vacuum) while `run` works on other connections; a killed process's lock ends with its connection.
 */
async function withMonthLock<T>(db: Db, start: Date, run: () => Promise<T>): Promise<T | undefined> {
  const key = monthPartition(start);
  if (isEmbedded(db)) {
    if (movingHere.has(key)) return undefined;
    movingHere.add(key);
    try {
      return await run();
    } finally {
      movingHere.delete(key);
    }
  }
  let result: T | undefined;
  await db.transaction(async (lock) => {
    const [{ locked }] = await queryRows<{ locked: boolean }>(
      lock,
      sql`SELECT pg_try_advisory_xact_lock(${MOVE_LOCK_CLASS}, ${key}) AS locked`,
    );
    if (locked) result = await run();
  });
  return result;
}

/** The archivable calls of [start, end): `FROM` and `WHERE` of archiveCalls' own DELETE, with its CTE `cut`. */
function monthCalls(start: Date, end: Date) {
  return archivableCalls({ from: start, before: end });
}

/**
 * One call as a line of ClickHouse's TabSeparated, built by PostgreSQL: int8 and instants (epoch milliseconds) as
 * decimal text, booleans 0/1, text with backslash, tab, newline and carriage return escaped, NULL as \N. Built in the
 * database so the mover handles one string per batch, not an object per call (JSONEachRow from objects was most of
 * a copy's time in Node, README "History tier").
 */
const TSV_LINE = sql.raw(
  HISTORY_CALL_COLUMNS.map((c) => {
    const value = c.instant
      ? `(extract(epoch FROM c."${c.name}") * 1000)::int8::text`
      : c.type.includes("UInt8")
        ? `c."${c.name}"::int::text`
        : c.type.includes("String")
          ? `replace(replace(replace(replace(c."${c.name}", '\\', '\\\\'), E'\\t', '\\t'), E'\\n', '\\n'), E'\\r', '\\r')`
          : `c."${c.name}"::text`;
    return `coalesce(${value}, '\\N')`;
  }).join(` || E'\\t' || `),
);

/** Calls per batch of a copy unless told: one ClickHouse insert (one block) each. */
const COPY_BATCH = 50_000;

/**
 * Copies the month's archivable calls to its ClickHouse partition, dropped first: a copy interrupted anywhere starts
 * over whole (no insert is ever counted twice). Batches walk (start_time, id); the next batch is read from PostgreSQL
 * while the previous one is inserted. Answers how many were copied.
 */
async function copyMonth(
  db: Db,
  store: HistoryStore,
  start: Date,
  end: Date,
  options: Pick<MoveMonthOptions, "batchSize" | "progress">,
  afterFirstBatch: () => Promise<void>,
): Promise<number> {
  const batchSize = Math.max(1, options.batchSize ?? COPY_BATCH);
  const phase = `copying ${monthLabel(start)}`;
  await db.execute(sql`UPDATE history_moves SET copy_attempts = copy_attempts + 1
                       WHERE month = ${start.toISOString()}::timestamptz`);
  await dropMonthPartition(store, start);
  const { cut, where } = monthCalls(start, end);
  // The total (for progress only) is counted while the first batch is read.
  const counting = queryRows<{ n: string }>(
    db,
    sql`WITH ${cut} SELECT count(*)::text AS n FROM calls c, invoiced_until u WHERE ${where}`,
  ).then(([{ n }]) => Number(n));
  counting.catch(() => undefined);
  // A batch is the next `batchSize` calls of the month on (start_time, id), read through the (start_time, id) index,
  // of which the archivable ones are copied: each batch reads its own range, not the rest of the month (a LIMIT over
  // the archivable join sorted the month's remaining calls for every batch). Keys travel as PostgreSQL's text.
  type Batch = { scanned: number; n: number; tsv: string | null; at: string | null; id: string | null };
  const read = async (after?: { at: string; id: string }): Promise<Batch> => {
    const keyset = after ? sql`(c.start_time, c.id) > (${after.at}::timestamptz, ${after.id}::int8)` : sql`true`;
    const [batch] = await queryRows<Batch>(
      db,
      sql`WITH ${cut}, keys AS MATERIALIZED (
            SELECT c.start_time, c.id FROM calls c
            WHERE c.start_time >= ${start.toISOString()}::timestamptz AND c.start_time < ${end.toISOString()}::timestamptz
              AND ${keyset}
            ORDER BY c.start_time, c.id LIMIT ${batchSize}
          ), upper AS (
            SELECT start_time, id FROM keys ORDER BY start_time DESC, id DESC LIMIT 1
          ), batch AS (
            SELECT ${TSV_LINE} AS line FROM calls c, invoiced_until u, upper
            WHERE ${where} AND ${keyset} AND (c.start_time, c.id) <= (upper.start_time, upper.id)
          )
          SELECT (SELECT count(*) FROM keys)::int AS scanned, count(*)::int AS n,
                 string_agg(line, E'\\n') || E'\\n' AS tsv,
                 (SELECT start_time::text FROM upper) AS at, (SELECT id::text FROM upper) AS id
          FROM batch`,
    );
    return { ...batch, scanned: Number(batch.scanned), n: Number(batch.n) };
  };
  let copied = 0;
  let batch = await read();
  const total = await counting;
  options.progress?.({ phase, done: 0, total });
  for (;;) {
    // The next batch's read runs while this one is inserted (it needs only this one's last key).
    const next = batch.scanned === batchSize ? read({ at: batch.at!, id: batch.id! }) : undefined;
    next?.catch(() => undefined);
    if (batch.n > 0) {
      await store.client.insert({
        table: callsTable(store),
        format: "TabSeparated",
        values: Readable.from([batch.tsv!], { objectMode: false }),
        clickhouse_settings: insertSettings(store),
      });
      copied += batch.n;
      options.progress?.({ phase, done: copied, total: Math.max(total, copied) });
      if (copied === batch.n) await afterFirstBatch();
    }
    if (!next) break;
    batch = await next;
  }
  return copied;
}

/** Per billing group and UTC day: count, and sums of price, buy cost, billed seconds and ids. */
type DaySums = Map<string, string>;

/**
 * Both stores' sums of the month per group and UTC day. Equal: the totals. Otherwise the (group, day)s that differ.
 * The sum of ids is a fifth check: a call copied twice, or in the place of another, changes it.
 */
async function verifyMonth(
  db: Db,
  store: HistoryStore,
  start: Date,
  end: Date,
  progress?: ProgressReporter,
): Promise<{ totals: MoveTotals } | { differences: string[] }> {
  progress?.({ phase: `verifying ${monthLabel(start)}`, done: 0 });
  const { cut, where } = monthCalls(start, end);
  type Sums = { g: string; day: string; n: string; price: string; buy: string; secs: string; ids: string };
  // Both stores' sums at once: PostgreSQL's scan and ClickHouse's are independent.
  const postgresSums = queryRows<Sums>(
    db,
    sql`WITH ${cut} SELECT c.billing_group_id AS g, to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
               count(*)::text AS n, sum(c.price_micros)::text AS price,
               sum(coalesce(c.buy_cost_micros, 0))::text AS buy, sum(c.bill_duration)::text AS secs,
               sum(c.id)::text AS ids
        FROM calls c, invoiced_until u WHERE ${where} GROUP BY 1, 2`,
  );
  postgresSums.catch(() => undefined);
  const result = await store.client.query({
    query: `SELECT billing_group_id AS g, intDiv(start_time, 86400000) AS d, toString(count()) AS n,
                   toString(sum(price_micros)) AS price, toString(sum(ifNull(buy_cost_micros, 0))) AS buy,
                   toString(sum(bill_duration)) AS secs, toString(sum(id)) AS ids
            FROM ${callsTable(store)}
            WHERE start_time >= ${start.getTime()} AND start_time < ${end.getTime()}
            GROUP BY g, d`,
    format: "JSONEachRow",
  });
  const inHistory = (await result.json<Omit<Sums, "day"> & { d: string | number }>()).map((r) => ({
    ...r,
    day: new Date(Number(r.d) * 86_400_000).toISOString().slice(0, 10),
  }));
  const inPostgres = await postgresSums;
  const sums = (rows: Sums[]): DaySums =>
    new Map(rows.map((r) => [`${r.g} ${r.day}`, [r.n, r.price, r.buy, r.secs, r.ids].join(" ")]));
  const [pg, ch] = [sums(inPostgres), sums(inHistory)];
  const differences = [...new Set([...pg.keys(), ...ch.keys()])].filter((k) => pg.get(k) !== ch.get(k)).sort();
  if (differences.length > 0) return { differences };
  const total = (pick: (r: Sums) => string) => inPostgres.reduce((s, r) => s + BigInt(pick(r)), 0n).toString();
  return {
    totals: {
      calls: total((r) => r.n),
      priceMicros: total((r) => r.price),
      buyCostMicros: total((r) => r.buy),
      billedSeconds: total((r) => r.secs),
    },
  };
}

/**
 * Removes the verified calls from PostgreSQL through archiveCalls and marks the move removed, in one REPEATABLE READ
 * transaction: its totals read and the archive's DELETE see one snapshot, so what is removed is what was verified.
 * False (nothing changed) when the month's calls no longer add up to the verified totals, or their tier charges in
 * that snapshot differ from history's (read again: ClickHouse's copy does not change under the month's lock).
 */
async function removeMonth(
  db: Db,
  store: HistoryStore,
  start: Date,
  end: Date,
  verified: MoveTotals,
): Promise<boolean> {
  const { cut, where } = monthCalls(start, end);
  const partition = monthCallsPartition(start);
  const [{ whole }] = await queryRows<{ whole: boolean }>(
    db,
    sql`SELECT to_regclass(${`public.${partition}`}) IS NOT NULL AS whole`,
  );
  return db.transaction(
    async (tx) => {
      // Before the snapshot (the transaction's first statement): no call of the month is written or removed by anyone
      // else until it ends, so a partition that holds only the verified calls still does when it is emptied.
      if (whole) await tx.execute(sql.raw(`LOCK TABLE public.${partition} IN SHARE MODE`));
      const [now] = await queryRows<{ calls: string; price: string; buy: string; seconds: string }>(
        tx,
        sql`WITH ${cut} SELECT count(*)::text AS calls, coalesce(sum(c.price_micros), 0)::text AS price,
                   coalesce(sum(coalesce(c.buy_cost_micros, 0)), 0)::text AS buy,
                   coalesce(sum(c.bill_duration), 0)::text AS seconds
            FROM calls c, invoiced_until u WHERE ${where}`,
      );
      const same =
        now.calls === verified.calls &&
        now.price === verified.priceMicros &&
        now.buy === verified.buyCostMicros &&
        now.seconds === verified.billedSeconds;
      if (!same) return false;
      // The tier charges the DELETE takes with the calls are still history's copy (a tier re-rated since: copy again).
      if ((await tierChargeDifferences(tx, store, start, end)).length > 0) return false;
      const removed =
        whole && (await onlyVerifiedCalls(tx, partition, verified.calls))
          ? await emptyMonthPartition(tx, partition, start, end, verified.calls)
          : await archiveCalls(tx, { from: start, before: end });
      if (String(removed) !== verified.calls)
        throw new Error(`history move of ${monthLabel(start)}: removed ${removed} calls, verified ${verified.calls}`);
      await setState(tx, start, "verified", "removed", sql`removed_at = now()`);
      return true;
    },
    { isolationLevel: "repeatable read" },
  );
}

/** The month's partition of PostgreSQL's calls (ensure_call_partitions, migration 0008): calls_p202611. */
const monthCallsPartition = (start: Date) => `calls_p${monthPartition(start)}`;

/** Whether the month's partition holds exactly `calls` calls: the verified ones (they are all in it), and no other. */
async function onlyVerifiedCalls(tx: Executor, partition: string, calls: string): Promise<boolean> {
  const [{ n }] = await queryRows<{ n: string }>(tx, sql.raw(`SELECT count(*)::text AS n FROM public.${partition}`));
  return n === calls;
}

/**
 * Removes a month whose every call was verified: TRUNCATE of its partition, not a row DELETE (whose statement trigger
 * keeps every row in a transition table: most of a 1 M-call removal's time). A partition's TRUNCATE fires no trigger
 * of calls, so the rollups keep counting the calls and no recheck is marked, as archiveCalls' DELETE with
 * callbook.archiving on; uuid claims stay. The month's tier charges leave with their calls, as there. Answers how many
 * calls were removed (`calls`, what onlyVerifiedCalls found there).
 */
async function emptyMonthPartition(tx: Executor, partition: string, start: Date, end: Date, calls: string) {
  await tx.execute(sql.raw(`TRUNCATE public.${partition}`));
  // As archiveCalls: the tier rollups keep the charges' figures (and their delete trigger keeps no transition table).
  await whileArchiving(tx, () =>
    tx.execute(sql`DELETE FROM call_tier_charges
                   WHERE start_time >= ${start.toISOString()}::timestamptz AND start_time < ${end.toISOString()}::timestamptz`),
  );
  return Number(calls);
}

export type MonthOutcome = MoveMonthResult | { month: string; state: "refused"; reasons: string[] };

/**
 * Moves every month old enough (moveMonth), oldest first: each month with calls the archive would remove, and each
 * move left unfinished. A refused month is reported and the next one tried (months are independent).
 */
export async function moveOldMonths(
  db: Db,
  store: HistoryStore,
  options: Omit<MoveMonthOptions, "month">,
): Promise<MonthOutcome[]> {
  const now = options.now ?? new Date();
  const newest = utcMonthStart(now.getTime(), -options.moveAfterMonths);
  const [oldest] = await queryRows<{ at: string | null }>(
    db,
    sql`SELECT to_char(min(start_time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM calls`,
  );
  const unfinished = await queryRows<{ at: string }>(
    db,
    sql`SELECT to_char(month AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM history_moves
        WHERE state NOT IN ('removed', 'dropped')`,
  );
  const months = new Set(unfinished.map((m) => Date.parse(m.at)));
  if (oldest?.at) {
    for (let m = utcMonthStart(Date.parse(oldest.at)); m < newest; m = utcMonthStart(m, 1)) {
      const { cut, where } = monthCalls(new Date(m), new Date(utcMonthStart(m, 1)));
      const [any] = await queryRows(
        db,
        sql`WITH ${cut} SELECT 1 FROM calls c, invoiced_until u WHERE ${where} LIMIT 1`,
      );
      if (any) months.add(m);
    }
  }
  const outcomes: MonthOutcome[] = [];
  for (const m of [...months].sort((a, b) => a - b)) {
    try {
      outcomes.push(await moveMonth(db, store, { ...options, now, month: new Date(m) }));
    } catch (e) {
      if (!(e instanceof HistoryMoveRefusedError)) throw e;
      outcomes.push({ month: e.month, state: "refused", reasons: e.reasons });
    }
  }
  return outcomes;
}
