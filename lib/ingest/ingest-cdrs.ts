import { sql } from "drizzle-orm";
import { planOnce, queryRows, type Db, type Executor } from "@/lib/db/client";
import { elapsedSeconds, isoToEpochMicros } from "@/lib/rating/billing-math";
import { loadDatedCards, type DatedCards } from "@/lib/rating/find-rate";
import { calls } from "@/lib/db/schema";
import { callDebitEntriesSql, callDebits, moveBalances, tierDebitEntriesSql } from "@/lib/billing/ledger";
import {
  CALL_COLUMNS,
  CALL_INSERT_COLUMNS,
  CALL_RECORDSET_COLUMNS,
  callsToRecordsetJson,
  toStoredCall,
  type NewStoredCall,
  type StoredCall,
} from "@/lib/calls/stored-call";
import { withRetry } from "@/lib/db/errors";
import { ensureCallMonths, utcMonthStart } from "@/lib/db/call-partitions";
import { movedMonthsOf } from "@/lib/history/moved-months";
import { noteCallsWritten } from "@/lib/db/planner-statistics";
import { rateCall, type CallRating } from "@/lib/rating/rate-call";
import {
  accountTreeSql,
  ancestorChain,
  rateTiers,
  TIER_RECORDSET,
  tierRecord,
  type TierCharge,
  type TreeNode,
} from "@/lib/rating/tier-charges";
import type { NativeCdr } from "./schemas";

export interface IngestOutcome {
  /** created: stored (and debited) now; duplicate: the same call was stored before, nothing debited. */
  status: "created" | "duplicate";
  call: StoredCall;
}

/** A CDR that cannot be stored as given (e.g. names no known billing group). Nothing was written. */
export class CdrRejectedError extends Error {
  constructor(
    /** Position in the batch. */
    readonly index: number,
    /** Field of the CDR at fault, e.g. "billingGroupId". */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A CDR whose uuid is stored with different content. Nothing in the batch was written. */
export class CdrConflictError extends Error {
  constructor(
    readonly index: number,
    readonly uuid: string,
    /** Fields that differ from the stored call. */
    readonly fields: string[],
  ) {
    super(`a call with uuid ${uuid} is already stored with different ${fields.join(", ")}`);
  }
}

/** What a CDR stores, before rating: the comparable content of a call (calls columns by their js names). */
const CONTENT_COLUMNS = [
  "uuid",
  "billingGroupId",
  "direction",
  "fromNumber",
  "toNumber",
  "startTime",
  "answerTime",
  "endTime",
  "pddMs",
  "hangupCause",
  "q850Cause",
  "readCodec",
  "writeCodec",
  "recordingUrl",
  "accountcode",
  "networkAddr",
  "supplierId",
] as const satisfies readonly (keyof NewStoredCall)[];
type CallContent = Pick<NewStoredCall, (typeof CONTENT_COLUMNS)[number]>;

/** A uuid stored again must carry the same content; the uuid itself is the key, not compared. */
const COMPARED = CONTENT_COLUMNS.filter((key) => key !== "uuid");

const TO_PARAM: Partial<Record<keyof CallContent, string>> = {
  fromNumber: "from",
  toNumber: "to",
  pddMs: "pdd",
};

function differingFields(a: CallContent, b: CallContent): string[] {
  const out: string[] = [];
  for (const key of COMPARED) {
    const x = a[key];
    const y = b[key];
    const same =
      x instanceof Date || y instanceof Date
        ? (x as Date | null)?.getTime() === (y as Date | null)?.getTime()
        : x === y;
    if (!same) out.push(TO_PARAM[key] ?? key);
  }
  return out;
}

interface GroupRow {
  id: string;
  currency: string;
  accountcode: string | null;
  version: number | bigint;
}
interface SupplierRow {
  id: string;
  gateway_name: string | null;
  version: number | bigint;
}

const jsonList = (values: Iterable<string>) => JSON.stringify([...new Set(values)]);

/**
 * A call's identity: its uuid is unique per billing group (call_uuids' primary key), never across groups.
 * NUL separates the two: the CDR schema refuses it in both, so the key is unambiguous.
 */
const callKey = (billingGroupId: string, uuid: string) => `${billingGroupId}\u0000${uuid}`;

/** Stored timestamps have millisecond precision: truncate the same way on both sides of a comparison. */
const msDate = (micros: number) => new Date(Math.floor(micros / 1000));

interface Prepared {
  /** callKey of the call. */
  key: string;
  content: CallContent;
  duration: number;
  rating: CallRating;
  currency: string;
  /** What each account above the call's pays its parent for it (none for a root account's call). */
  tiers: readonly TierCharge[];
}

const NO_TIERS: readonly TierCharge[] = [];

export interface IngestOptions {
  /** Only this group may be charged (a key bound to a group); others are rejected like unknown ones. */
  restrictToBillingGroupId?: string | null;
  /** A history ingested at once (the demo): each debit dated at its call's end, not now (callDebitEntriesSql). */
  debitsAtCallEnd?: boolean;
}

/**
 * Stores completed calls, rates them and debits their groups: ONE transaction per batch, so a
 * batch is stored whole or not at all. Idempotent by uuid within a billing group, also under concurrent
 * duplicates: the uuid is claimed in call_uuids (`ON CONFLICT (billing_group_id, uuid) DO NOTHING`) and only
 * the calls it claimed are inserted and debited; a replay with another startTime is a conflict, not a second call.
 * Another group's calls are never read: the same uuid there is a different call, so a key learns nothing about it
 * (no conflict, no field list).
 * Returns one outcome per input, in order. Throws CdrRejectedError (unknown group or supplier)
 * or CdrConflictError (a uuid stored for the same group with other content), writing nothing.
 * What the insert and the debit fire: triggersOn("calls"), triggersOn("call_uuids"), triggersOn("ledger_entries")
 * and triggersOn("billing_groups") (lib/testing/declared-triggers.ts, the lookup over every concept's declarations).
 */
export async function ingestCdrs(
  db: Db,
  cdrs: readonly NativeCdr[],
  options: IngestOptions = {},
): Promise<IngestOutcome[]> {
  if (cdrs.length === 0) return [];
  // Every statement of ingest has one best plan whatever its values: planned once per connection (planOnce).
  const writer = planOnce(db);
  const owners = await resolveOwners(writer, cdrs);
  const times = batchTimes(cdrs);
  await refuseMovedMonths(db, times);
  const cards = await loadBatchCards(db, owners, times.startsMs);
  const batch = prepareBatch(cdrs, owners, cards, times, options);
  // Every month of the batch has its partition (a no-op after the first batch of a month in this process).
  await ensureCallMonths(db, times.startsMs);
  const stored = await withRetry(() => writer.transaction((tx) => storeBatch(tx, batch, options)));
  // Committed: the calls' planner statistics are refreshed in the background once enough rows were written.
  noteCallsWritten(db, [...stored.values()].filter((e) => e.created).length);
  return outcomesInInputOrder(batch.keys, stored);
}

type Owners = Awaited<ReturnType<typeof resolveOwners>>;

/** A late CDR of a month moved to the history tier is refused (docs/contract.md "History tier"); off without it. */
async function refuseMovedMonths(db: Db, times: ReturnType<typeof batchTimes>): Promise<void> {
  const moved = await movedMonthsOf(db, times.startsMs);
  if (moved.size === 0) return;
  const index = times.startsMicros.findIndex((us) => moved.has(utcMonthStart(Math.floor(us / 1000))));
  const month = new Date(utcMonthStart(Math.floor(times.startsMicros[index] / 1000))).toISOString().slice(0, 7);
  throw new CdrRejectedError(
    index,
    "startTime",
    `the call starts in ${month}, a month moved to the history tier: a late CDR for a moved month is refused`,
  );
}

/** The CDRs' start instants in epoch microseconds, and the distinct milliseconds that choose decks and partitions. */
function batchTimes(cdrs: readonly NativeCdr[]) {
  const startsMicros = cdrs.map((c) => isoToEpochMicros(c.startTime));
  return { startsMicros, startsMs: new Set(startsMicros.map((us) => Math.floor(us / 1000))) };
}

/**
 * Each call is rated with the decks in force at its start (a late CDR with the deck of its day), at every tier: the
 * sell decks of the named groups and of their ancestors.
 */
async function loadBatchCards(db: Db, owners: Owners, startsMs: ReadonlySet<number>) {
  const sell = new Map<string, DatedCards>();
  const buy = new Map<string, DatedCards>();
  for (const g of new Set(owners.groups.values()))
    sell.set(g.id, await loadDatedCards(db, "sell", g.id, Number(g.version), startsMs));
  for (const [id, node] of owners.tree)
    if (!sell.has(id)) sell.set(id, await loadDatedCards(db, "sell", id, node.version, startsMs));
  for (const s of owners.suppliersById.values())
    buy.set(s.id, await loadDatedCards(db, "buy", s.id, Number(s.version), startsMs));
  return { sell, buy };
}

interface PreparedBatch {
  /** callKey of every input, in input order. */
  keys: string[];
  /** Each call once, in insert order: (group, uuid). */
  unique: Prepared[];
  /** Index of the first input of each call. */
  firstIndexOfKey: Map<string, number>;
}

/**
 * Every call prepared in JS (pure): its group and supplier checked, its content, duration and rating. A uuid listed
 * twice for one group in one batch is one call (a copy with other content is a conflict). Throws, in input order,
 * CdrRejectedError or CdrConflictError.
 */
function prepareBatch(
  cdrs: readonly NativeCdr[],
  owners: Owners,
  cards: Awaited<ReturnType<typeof loadBatchCards>>,
  times: ReturnType<typeof batchTimes>,
  options: IngestOptions,
): PreparedBatch {
  const prepared: Prepared[] = [];
  const keys: string[] = [];
  const firstIndexOfKey = new Map<string, number>();
  cdrs.forEach((cdr, index) => {
    const group = chargedGroup(cdr, index, owners, options);
    const supplierId = supplierOf(cdr, index, owners);
    const startMicros = times.startsMicros[index];
    const endMicros = isoToEpochMicros(cdr.endTime);
    const answerMicros = cdr.answerTime === null ? null : isoToEpochMicros(cdr.answerTime);
    const content = callContent(cdr, group.id, supplierId, startMicros, answerMicros, endMicros);
    const key = callKey(group.id, cdr.uuid);
    keys.push(key);
    const first = firstIndexOfKey.get(key);
    if (first !== undefined) {
      const differs = differingFields(prepared[first].content, content);
      if (differs.length > 0) throw new CdrConflictError(index, cdr.uuid, differs);
    } else {
      firstIndexOfKey.set(key, index);
    }
    const startMs = Math.floor(startMicros / 1000);
    const sellCard = cards.sell.get(group.id)?.at(startMs) ?? null;
    const buyCard = supplierId ? (cards.buy.get(supplierId)?.at(startMs) ?? null) : null;
    const chain = owners.hasParents ? ancestorChain(owners.tree, group.id) : [];
    prepared.push({
      key,
      content,
      duration: elapsedSeconds(startMicros, endMicros),
      rating: rateCall(cdr.to, answerMicros, endMicros, sellCard, buyCard),
      currency: group.currency.trim(),
      tiers:
        chain.length === 0
          ? NO_TIERS
          : rateTiers(chain, cdr.to, answerMicros, endMicros, (id) => cards.sell.get(id)?.at(startMs) ?? null),
    });
  });
  const unique = [...firstIndexOfKey.values()].map((i) => prepared[i]);
  // Insert in (group, uuid) order (json_to_recordset keeps array order): two batches sharing calls
  // then wait on each other in one direction only, never in a cycle.
  unique.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys, unique, firstIndexOfKey };
}

/** The group a CDR is charged to, by id or accountcode; unknown (or not the key's own): CdrRejectedError. */
function chargedGroup(cdr: NativeCdr, index: number, owners: Owners, options: IngestOptions): GroupRow {
  const found =
    cdr.billingGroupId !== null
      ? owners.groups.get(`id:${cdr.billingGroupId}`)
      : owners.groups.get(`ac:${cdr.accountcode}`);
  const restrict = options.restrictToBillingGroupId;
  // Same answer as for an unknown group: a bound key learns nothing about other groups.
  const group = found && (!restrict || found.id === restrict) ? found : undefined;
  if (group) return group;
  const field = cdr.billingGroupId !== null ? "billingGroupId" : "accountcode";
  const value = cdr.billingGroupId ?? cdr.accountcode;
  throw new CdrRejectedError(
    index,
    field,
    `no billing group ${field === "accountcode" ? "has the accountcode" : "has the id"} "${value}"`,
  );
}

/** The supplier of a CDR, by id (unknown: CdrRejectedError) or gateway (unmapped: none). */
function supplierOf(cdr: NativeCdr, index: number, owners: Owners): string | null {
  if (cdr.supplierId !== null) {
    if (!owners.suppliersById.has(cdr.supplierId))
      throw new CdrRejectedError(index, "supplierId", `no supplier has the id "${cdr.supplierId}"`);
    return cdr.supplierId;
  }
  // An unmapped gateway is not an error: the call is stored without buy cost rather than lost.
  if (cdr.gateway !== null) return owners.suppliersByGateway.get(cdr.gateway)?.id ?? null;
  return null;
}

function callContent(
  cdr: NativeCdr,
  billingGroupId: string,
  supplierId: string | null,
  startMicros: number,
  answerMicros: number | null,
  endMicros: number,
): CallContent {
  return {
    uuid: cdr.uuid,
    billingGroupId,
    direction: cdr.direction,
    fromNumber: cdr.from,
    toNumber: cdr.to,
    startTime: msDate(startMicros),
    answerTime: answerMicros === null ? null : msDate(answerMicros),
    endTime: msDate(endMicros),
    pddMs: cdr.pdd === null ? null : Math.round(cdr.pdd * 1000),
    hangupCause: cdr.hangupCause,
    q850Cause: cdr.q850Cause,
    readCodec: cdr.readCodec,
    writeCodec: cdr.writeCodec,
    recordingUrl: cdr.recordingUrl,
    accountcode: cdr.accountcode,
    networkAddr: cdr.networkAddr,
    supplierId,
  };
}

/** A call of the batch as stored, and whether this batch created it. */
type StoredEntry = { call: StoredCall; created: boolean };

/**
 * The batch's transaction: inserts the calls whose uuid it claims (with their debit ledger entries), holds every
 * other call of the batch to the stored one (same content, else CdrConflictError), then debits the groups.
 */
async function storeBatch(
  tx: Executor,
  batch: PreparedBatch,
  options: IngestOptions,
): Promise<Map<string, StoredEntry>> {
  const inserted = await insertCalls(tx, batch.unique, options.debitsAtCallEnd ?? false);
  const createdKeys = new Set(inserted.map((c) => callKey(c.billingGroupId, c.uuid)));
  const replayed = batch.unique.filter((p) => !createdKeys.has(p.key)).map((p) => p.content);
  const existing = await storedCallsOf(tx, replayed);
  // The tiers' charges of the calls inserted now (their entries were written with the insert): replays debit none.
  const tierDebits = batch.unique.some((p) => p.tiers.length > 0)
    ? batch.unique
        .filter((p) => createdKeys.has(p.key))
        .flatMap((p) =>
          p.tiers.map((t) => ({ billingGroupId: t.tierGroupId, rated: t.rated, priceMicros: t.priceMicros })),
        )
    : [];
  const byKey = new Map<string, StoredEntry>();
  for (const call of inserted) byKey.set(callKey(call.billingGroupId, call.uuid), { call, created: true });
  for (const call of existing) byKey.set(callKey(call.billingGroupId, call.uuid), { call, created: false });
  checkReplays(replayed, byKey, batch.firstIndexOfKey);
  // The ledger entries were written with the insert; now their balances: one atomic UPDATE per group (the calls'
  // accounts and the tiers above them together), in id order, so batches sharing a reseller never deadlock.
  await moveBalances(tx, callDebits(tierDebits.length === 0 ? inserted : [...inserted, ...tierDebits]));
  return byKey;
}

/**
 * The stored calls of replayed CDRs: looked up by (group, uuid) in call_uuids, then by calls' primary key (one
 * partition, whatever startTime the replay carries). Only this group's record is compared.
 */
async function storedCallsOf(tx: Executor, replayed: CallContent[]): Promise<StoredCall[]> {
  if (replayed.length === 0) return [];
  const wanted = JSON.stringify(replayed.map((c) => ({ g: c.billingGroupId, u: c.uuid })));
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    sql`SELECT ${CALL_COLUMNS}
                    FROM json_to_recordset(${wanted}::json) AS x(g text, u text)
                    JOIN call_uuids k ON k.billing_group_id = x.g AND k.uuid = x.u
                    JOIN calls ON calls.billing_group_id = k.billing_group_id AND calls.start_time = k.start_time AND calls.id = k.call_id`,
  );
  return rows.map(toStoredCall);
}

/** A replayed CDR must match its stored call; one neither inserted nor found is retried (40001). */
function checkReplays(
  replayed: CallContent[],
  byKey: ReadonlyMap<string, StoredEntry>,
  firstIndexOfKey: ReadonlyMap<string, number>,
): void {
  for (const content of replayed) {
    const key = callKey(content.billingGroupId, content.uuid);
    const entry = byKey.get(key);
    const index = firstIndexOfKey.get(key)!;
    // Not inserted and not found: its inserter rolled back after our insert gave way. Retry the batch.
    if (!entry) throw Object.assign(new Error(`call ${content.uuid} vanished during ingest`), { code: "40001" });
    const differs = differingFields(entry.call, content);
    if (differs.length > 0) throw new CdrConflictError(index, content.uuid, differs);
  }
}

/** One outcome per input, in input order; a call repeated within the batch is created once, then duplicate. */
function outcomesInInputOrder(keys: readonly string[], stored: ReadonlyMap<string, StoredEntry>): IngestOutcome[] {
  const reported = new Set<string>();
  return keys.map((key) => {
    const entry = stored.get(key)!;
    const status = entry.created && !reported.has(key) ? "created" : "duplicate";
    reported.add(key);
    return { status, call: entry.call };
  });
}

/** A billing group named by the CDRs ("g"), an ancestor of one ("p") or a supplier ("s"): resolveOwners' one query. */
interface OwnerRow {
  kind: "g" | "p" | "s";
  id: string;
  currency: string | null;
  accountcode: string | null;
  gateway_name: string | null;
  version: number | bigint;
  parent_id: string | null;
}

/**
 * The groups and suppliers the CDRs name, and the groups' ancestors (the account tree: parents never change), in one
 * round trip: a flush of coalesced single posts pays it once per batch, before its transaction.
 */
async function resolveOwners(db: Executor, cdrs: readonly NativeCdr[]) {
  const ids = cdrs.flatMap((c) => (c.billingGroupId !== null ? [c.billingGroupId] : []));
  const codes = cdrs.flatMap((c) => (c.billingGroupId === null && c.accountcode !== null ? [c.accountcode] : []));
  const supplierIds = cdrs.flatMap((c) => (c.supplierId !== null ? [c.supplierId] : []));
  const gateways = cdrs.flatMap((c) => (c.supplierId === null && c.gateway !== null ? [c.gateway] : []));
  const suppliers =
    supplierIds.length + gateways.length > 0
      ? sql` UNION ALL
          SELECT 's', id, NULL, NULL, gateway_name, rate_card_version, NULL FROM suppliers
          WHERE id IN (SELECT json_array_elements_text(${jsonList(supplierIds)}::json))
             OR gateway_name IN (SELECT json_array_elements_text(${jsonList(gateways)}::json))`
      : sql``;
  const rows = await queryRows<OwnerRow>(
    db,
    sql`WITH RECURSIVE named AS MATERIALIZED (
          SELECT id, currency, accountcode, rate_card_version, parent_id FROM billing_groups
          WHERE id IN (SELECT json_array_elements_text(${jsonList(ids)}::json))
             OR accountcode IN (SELECT json_array_elements_text(${jsonList(codes)}::json))
        ), ${accountTreeSql(sql`SELECT parent_id FROM named`)}
        SELECT 'g' AS kind, id, currency, accountcode, NULL AS gateway_name, rate_card_version AS version, parent_id FROM named
        UNION ALL
        SELECT 'p', id, NULL, NULL, NULL, rate_card_version, parent_id FROM tree${suppliers}`,
  );
  const groups = new Map<string, GroupRow>();
  const suppliersById = new Map<string, SupplierRow>();
  const suppliersByGateway = new Map<string, SupplierRow>();
  const tree = new Map<string, TreeNode>();
  let hasParents = false;
  for (const r of rows) {
    if (r.kind !== "s") {
      tree.set(r.id, { parentId: r.parent_id, version: Number(r.version) });
      hasParents ||= r.kind === "g" && r.parent_id !== null;
    }
    if (r.kind === "p") continue;
    if (r.kind === "g") {
      const g: GroupRow = { id: r.id, currency: r.currency!, accountcode: r.accountcode, version: r.version };
      groups.set(`id:${g.id}`, g);
      if (g.accountcode !== null) groups.set(`ac:${g.accountcode}`, g);
    } else {
      const s: SupplierRow = { id: r.id, gateway_name: r.gateway_name, version: r.version };
      suppliersById.set(s.id, s);
      if (s.gateway_name !== null) suppliersByGateway.set(s.gateway_name, s);
    }
  }
  return { groups, suppliersById, suppliersByGateway, tree, hasParents };
}

/**
 * Claims the uuids that are new in call_uuids (ON CONFLICT (billing_group_id, uuid) DO NOTHING), inserts only
 * the claimed calls and, in the same statement, the debit ledger entries of those that cost something. The
 * ids are drawn first (nextval, in the batch's order, so they grow as before) so the claim names its call. A
 * uuid another transaction is inserting waits for it here, as a unique index would make it. Answers the
 * inserted calls as stored: the row is built from the values sent, plus the id and created_at the database assigned.
 */
async function insertCalls(tx: Executor, rows: Prepared[], debitsAtCallEnd: boolean): Promise<StoredCall[]> {
  if (rows.length === 0) return [];
  const json = callsToRecordsetJson(
    rows.map((p) => [p.content, p.rating, { duration: p.duration, currency: p.currency }]),
  );
  const tiered = rows.some((p) => p.tiers.length > 0);
  // The tiers' charges of the claimed calls, joined to them by (group, uuid), and their debits: same statement.
  const tiers = tiered
    ? sql`, tj AS MATERIALIZED (
          SELECT ins.id, ins.billing_group_id, ins.start_time, ins.to_number, ins.end_time, t.*
          FROM json_to_recordset(${JSON.stringify(rows.flatMap((p) => p.tiers.map((t) => tierRecord({ g: p.content.billingGroupId, u: p.content.uuid }, t))))}::json)
            AS t(g text, u text, ${TIER_RECORDSET})
          JOIN ins ON ins.billing_group_id = t.g AND ins.uuid = t.u
        ), tier_rows AS (
          INSERT INTO call_tier_charges (billing_group_id, start_time, call_id, tier_group_id, depth, rated, matched_prefix, rate_micros, bill_duration, price_micros, rate_deck_id)
          SELECT billing_group_id, start_time, id, tier, depth, rated, prefix, rate, bill, price, deck FROM tj
        ), tier_debits AS (
          ${tierDebitEntriesSql(sql.raw("tj"), { atCallEnd: debitsAtCallEnd })}
        )`
    : sql``;
  const inserted = await queryRows<{ id: string; uuid: string; billing_group_id: string; created_at: unknown }>(
    tx,
    sql`WITH x AS MATERIALIZED (
          SELECT nextval('calls_id_seq') AS id, x.* FROM json_to_recordset(${json}::json) AS x(${CALL_RECORDSET_COLUMNS})
        ), claimed AS (
          INSERT INTO call_uuids (billing_group_id, uuid, start_time, call_id)
          SELECT billing_group_id, uuid, start_time, id FROM x
          ON CONFLICT (billing_group_id, uuid) DO NOTHING
          RETURNING call_id
        ), ins AS (
          INSERT INTO calls (id, ${CALL_INSERT_COLUMNS})
          SELECT x.* FROM x WHERE x.id IN (SELECT call_id FROM claimed)
          RETURNING id, uuid, billing_group_id, to_number, rated, price_micros, end_time, created_at${tiered ? sql`, start_time` : sql``}
        ), debits AS (
          ${callDebitEntriesSql(sql.raw("ins"), { atCallEnd: debitsAtCallEnd })}
        )${tiers}
        SELECT id::text AS id, uuid, billing_group_id, created_at FROM ins`,
  );
  const byKey = new Map(rows.map((p) => [p.key, p]));
  return inserted.map((r) =>
    storedCallOf(
      byKey.get(callKey(r.billing_group_id, r.uuid))!,
      BigInt(r.id),
      calls.createdAt.mapFromDriverValue(r.created_at as string) as Date,
    ),
  );
}

/**
 * The row a prepared call became: its content, duration, currency, rating, id and created_at. Written out field by
 * field: two object spreads per call were ~10% of a 1000-call batch's CPU (and most of its garbage) in a profile.
 */
function storedCallOf(p: Prepared, id: bigint, createdAt: Date): StoredCall {
  const c = p.content;
  const r = p.rating;
  return {
    id,
    uuid: c.uuid,
    billingGroupId: c.billingGroupId,
    direction: c.direction,
    fromNumber: c.fromNumber,
    toNumber: c.toNumber,
    startTime: c.startTime,
    answerTime: c.answerTime,
    endTime: c.endTime,
    pddMs: c.pddMs,
    hangupCause: c.hangupCause,
    q850Cause: c.q850Cause,
    readCodec: c.readCodec,
    writeCodec: c.writeCodec,
    recordingUrl: c.recordingUrl,
    accountcode: c.accountcode,
    networkAddr: c.networkAddr,
    supplierId: c.supplierId,
    duration: p.duration,
    currency: p.currency,
    rated: r.rated,
    billDuration: r.billDuration,
    matchedPrefix: r.matchedPrefix,
    sellRateMicros: r.sellRateMicros,
    incrementMin: r.incrementMin,
    incrementInterval: r.incrementInterval,
    priceMicros: r.priceMicros,
    buyRateMicros: r.buyRateMicros,
    buyBillDuration: r.buyBillDuration,
    buyCostMicros: r.buyCostMicros,
    rateDeckId: r.rateDeckId,
    connectFeeMicros: r.connectFeeMicros,
    minChargeMicros: r.minChargeMicros,
    buyRateDeckId: r.buyRateDeckId,
    buyConnectFeeMicros: r.buyConnectFeeMicros,
    buyMinChargeMicros: r.buyMinChargeMicros,
    createdAt,
  };
}
