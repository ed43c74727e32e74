import type { Pool, PoolClient, QueryConfig } from "pg";
import { databaseReplicaUrl, pgPoolMax, replicaMaxLagMs } from "@/lib/config/env";
import { processSingleton } from "@/lib/runtime/process-singleton";
import * as schema from "./schema";
import type { Db } from "./client";
import { isDatabaseUnavailable } from "./errors";
import { sharedRedis } from "./redis";

// Listing reads (GET /v1/calls, its CSV export, GET /v1/usage, and the portal pages built on them) may be served
// by a streaming replica of the primary (DATABASE_REPLICA_URL, PostgreSQL only). Everything else (auth, balances,
// rates, authorizations, ingest) stays on the primary. Three rules keep the replica's answers correct:
// - Read-your-writes: after an ingest commits, the primary's WAL position (pg_current_wal_lsn()) is remembered for
//   the writer's billing group (platform keys: for every group), in memory and, with REDIS_URL, in Redis so every
//   app process knows it. A read of that group goes to the replica only once its pg_last_wal_replay_lsn() has
//   reached that position, else to the primary.
// - Bounded staleness: the replica serves only while it is at most DATABASE_REPLICA_MAX_LAG_MS behind. Probes
//   sample the primary's WAL position and the replica's replay position together: the replica holds everything the
//   primary had committed at the newest sampled instant whose position it has replayed, so its staleness is at most
//   the age of that sample. A paused or disconnected replica ages past the bound and reads go to the primary.
//   (Marks therefore only matter within the bound: they expire after it.)
// - Never fail a read: a replica that is down (or cancels a query for a conflict with recovery) is skipped for a
//   moment and the query runs on the primary, also halfway through a read-only transaction (it is replayed there).

const PROBE_EVERY_MS = 250;
const DOWN_BACKOFF_MS = 2_000;
const MAX_SAMPLES = 1_000;
const REDIS_PREFIX = "cb:lsn:";

/** "16/B374D848" -> 0x16B374D848 */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!m) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** 16 hex digits, so positions compare as strings (in Redis's Lua). */
export function lsnKey(lsn: bigint): string {
  return lsn.toString(16).padStart(16, "0");
}

const INFINITE = (1n << 64n) - 1n;

/** Where in the primary's WAL the latest write a reader must see ends. */
export interface WriteMarks {
  /** Records a write by `groupId` (null: a platform key, which may have written any group). */
  note(groupId: string | null, lsn: bigint): Promise<void>;
  /** The position a reader of `groupId` (null: a platform reader, every group) must see. 0 when none. */
  required(groupId: string | null): Promise<bigint>;
}

type Mark = { lsn: bigint; at: number };

/** In this process only; marks older than the lag bound are dropped (an admitted replica has them anyway). */
export class MemoryWriteMarks implements WriteMarks {
  private readonly groups = new Map<string, Mark>();
  private platform: Mark = { lsn: 0n, at: 0 };
  private any: Mark = { lsn: 0n, at: 0 };

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private live(mark: Mark | undefined): bigint {
    return mark && this.now() - mark.at <= this.ttlMs ? mark.lsn : 0n;
  }

  private raise(mark: Mark | undefined, lsn: bigint): Mark {
    const now = this.now();
    return { lsn: mark && this.live(mark) > lsn ? mark.lsn : lsn, at: now };
  }

  async note(groupId: string | null, lsn: bigint): Promise<void> {
    this.any = this.raise(this.any, lsn);
    if (groupId === null) {
      this.platform = this.raise(this.platform, lsn);
      return;
    }
    if (this.groups.size >= 10_000) for (const [id, m] of this.groups) if (this.live(m) === 0n) this.groups.delete(id);
    this.groups.set(groupId, this.raise(this.groups.get(groupId), lsn));
  }

  async required(groupId: string | null): Promise<bigint> {
    if (groupId === null) return this.live(this.any);
    const own = this.live(this.groups.get(groupId));
    const platform = this.live(this.platform);
    return own > platform ? own : platform;
  }
}

// Raises each key to ARGV[1] (fixed-width hex, so string order is WAL order) and (re)sets its expiry.
const NOTE_SCRIPT = `
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  if (not cur) or cur < ARGV[1] then redis.call('SET', key, ARGV[1], 'PX', ARGV[2]) else redis.call('PEXPIRE', key, ARGV[2]) end
end
return 1
`;

type RedisLike = {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  mget(...keys: string[]): Promise<(string | null)[]>;
};

/**
 * Shared by every app process through Redis (REDIS_URL), backed by the in-memory marks: this process's own writes
 * are known even when Redis is not. A reader that cannot ask Redis gets INFINITE (read the primary): another
 * process may have written.
 */
export class RedisWriteMarks implements WriteMarks {
  constructor(
    private readonly redis: RedisLike,
    private readonly local: MemoryWriteMarks,
    private readonly ttlMs: number,
    /** Per database (a foreign mark could only send reads to the primary, never make them stale: marks take the max). */
    private readonly prefix = REDIS_PREFIX,
  ) {}

  async note(groupId: string | null, lsn: bigint): Promise<void> {
    await this.local.note(groupId, lsn);
    const keys = [`${this.prefix}any`, groupId === null ? `${this.prefix}platform` : `${this.prefix}g:${groupId}`];
    try {
      await this.redis.eval(NOTE_SCRIPT, keys.length, ...keys, lsnKey(lsn), Math.max(1_000, Math.ceil(this.ttlMs)));
    } catch {
      // Redis is down: the other processes' readers cannot ask it either, so they read the primary.
    }
  }

  async required(groupId: string | null): Promise<bigint> {
    const local = await this.local.required(groupId);
    const keys = groupId === null ? [`${this.prefix}any`] : [`${this.prefix}g:${groupId}`, `${this.prefix}platform`];
    let values: (string | null)[];
    try {
      values = await this.redis.mget(...keys);
    } catch {
      return INFINITE;
    }
    let max = local;
    for (const v of values) if (v && /^[0-9a-f]{16}$/.test(v) && BigInt(`0x${v}`) > max) max = BigInt(`0x${v}`);
    return max;
  }
}

/** Primary WAL positions sampled over time, to bound how far behind a replay position is. */
export class LagClock {
  private samples: Mark[] = [];

  /** `lsn` is the primary's position read after `at`. */
  addPrimary(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES);
  }

  /**
   * At most how many ms behind the primary a replica that has replayed up to `replay` is, at `now`: the age of the
   * newest sample it has reached (everything committed before that sample was taken is on it). Infinity when it has
   * reached none. Older samples than that one are dropped.
   */
  staleness(replay: bigint, now: number): number {
    let newest = -1;
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= replay) {
        newest = i;
        break;
      }
    }
    if (newest < 0) return Infinity;
    if (newest > 0) this.samples.splice(0, newest);
    return now - this.samples[0].at;
  }
}

interface ReplicaState {
  replay: bigint;
  /** When the replay position was read (it was read after this instant). */
  at: number;
}

function shouldFallBack(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = (error as { code?: unknown })?.code;
  // 40001: canceling statement due to conflict with recovery; 25006: read-only transaction (not a replica after all).
  return code === "40001" || code === "25006";
}

type QueryArgs = [QueryConfig | string, unknown[] | undefined];

/**
 * What the replica's drizzle instance runs on: the replica's pool, or the primary's when the replica fails a
 * query for a reason the primary would not have. drizzle-orm checks the constructor's name for "Pool" to run a
 * transaction on one checked-out client.
 */
class ReplicaFallbackPool {
  constructor(
    private readonly replica: Pool,
    private readonly primary: Pool,
    private readonly markDown: (reason: unknown) => void,
  ) {}

  async query(config: QueryConfig | string, values?: unknown[]): Promise<unknown> {
    try {
      return await this.replica.query(config as QueryConfig, values);
    } catch (e) {
      if (!shouldFallBack(e)) throw e;
      this.markDown(e);
      return this.primary.query(config as QueryConfig, values);
    }
  }

  async connect(): Promise<FallbackClient> {
    try {
      return new FallbackClient(await this.replica.connect(), true, this.primary, this.markDown);
    } catch (e) {
      if (!shouldFallBack(e)) throw e;
      this.markDown(e);
      return new FallbackClient(await this.primary.connect(), false, this.primary, this.markDown);
    }
  }
}
Object.defineProperty(ReplicaFallbackPool, "name", { value: "ReplicaFallbackPool" }); // survives minification

/** A checked-out client for a read-only transaction: if the replica fails it midway, the statements so far are replayed on the primary. */
class FallbackClient {
  private readonly done: QueryArgs[] = [];

  constructor(
    private client: PoolClient,
    private onReplica: boolean,
    private readonly primary: Pool,
    private readonly markDown: (reason: unknown) => void,
  ) {}

  async query(config: QueryConfig | string, values?: unknown[]): Promise<unknown> {
    if (this.onReplica) {
      try {
        const result = await this.client.query(config as QueryConfig, values);
        this.done.push([config, values]);
        return result;
      } catch (e) {
        if (!shouldFallBack(e)) throw e;
        this.markDown(e);
        this.client.release(true);
        this.client = await this.primary.connect();
        this.onReplica = false;
        for (const [c, v] of this.done) await this.client.query(c as QueryConfig, v);
      }
    }
    return this.client.query(config as QueryConfig, values);
  }

  release(error?: Error | boolean): void {
    this.client.release(error);
  }
}

/** Decides, per read, between the replica and the primary; records the writes readers must see. */
export class ReadRouter {
  private readonly clock = new LagClock();
  private state: ReplicaState | null = null;
  private downUntil = 0;
  private probing: Promise<void> | null = null;
  private probed = false;
  private lastProbeStart = 0;
  private lsnInFlight: Promise<bigint> | null = null;
  private lsnQueued: Promise<bigint> | null = null;
  readonly replicaDb: Db;

  constructor(
    private readonly primaryDb: Db,
    private readonly primaryPool: Pool,
    private readonly replicaPool: Pool,
    private readonly marks: WriteMarks,
    private readonly maxLagMs: number,
    makeDb: (client: unknown) => Db,
  ) {
    this.replicaDb = makeDb(new ReplicaFallbackPool(replicaPool, primaryPool, (e) => this.markDown(e)));
  }

  private markDown(reason: unknown): void {
    if (this.state !== null || !this.probed) {
      // once per outage: when a replica that answered (or the first probe) fails
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), replica: "skipped", reason: String((reason as Error)?.message ?? reason) })}\n`,
      );
    }
    this.downUntil = Date.now() + DOWN_BACKOFF_MS;
    this.state = null;
  }

  /** Samples the primary's WAL position and the replica's replay position (one query each, in parallel). */
  private probe(): Promise<void> {
    this.probing ??= (async () => {
      const at = Date.now();
      this.lastProbeStart = at;
      const [primary, replica] = await Promise.allSettled([
        this.primaryPool.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn"),
        this.replicaPool.query<{ lsn: string | null }>({
          text: "SELECT pg_last_wal_replay_lsn()::text AS lsn",
          query_timeout: 2_000,
        } as QueryConfig),
      ]);
      if (primary.status === "fulfilled") this.clock.addPrimary(at, parseLsn(primary.value.rows[0].lsn));
      const replay = replica.status === "fulfilled" ? replica.value.rows[0]?.lsn : null;
      // null: not in recovery (a promoted or mistaken primary), which no replay position describes.
      if (replay) this.state = { replay: parseLsn(replay), at };
      else this.markDown(replica.status === "rejected" ? replica.reason : "not in recovery");
      this.probed = true;
    })().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  /**
   * The executor for a listing read of `billingGroupId` (null: a platform key's read, of every group): the replica
   * when it is up, within the lag bound and has that group's writes.
   */
  async readDb(billingGroupId: string | null): Promise<Db> {
    const now = Date.now();
    if (now < this.downUntil) return this.primaryDb;
    const required = await this.marks.required(billingGroupId);
    if (!this.state || now - this.lastProbeStart >= PROBE_EVERY_MS) {
      const probe = this.probe().catch(() => undefined);
      if (!this.probed) await probe; // nothing known yet: wait for the first answer (later, a replica coming back is tried in the background)
    }
    if (!this.usable()) return this.primaryDb;
    if (this.state!.replay >= required) return this.replicaDb;
    // Behind this group's latest write as last seen: ask once more (replay is usually milliseconds behind).
    await this.probe().catch(() => undefined);
    return this.usable() && this.state!.replay >= required ? this.replicaDb : this.primaryDb;
  }

  private usable(): boolean {
    const now = Date.now();
    return (
      this.state !== null && now >= this.downUntil && this.clock.staleness(this.state.replay, now) <= this.maxLagMs
    );
  }

  /** After a write to `billingGroupId` committed: its readers (every reader, for null: a platform key) must see it. */
  async noteWrite(billingGroupId: string | null): Promise<void> {
    let lsn: bigint;
    try {
      lsn = await this.currentLsn();
    } catch {
      lsn = INFINITE; // position unknown: this group reads the primary until the mark expires (the lag bound)
    }
    await this.marks.note(billingGroupId, lsn);
  }

  /** pg_current_wal_lsn() read after the caller's commit; concurrent callers share one query started after they asked. */
  private currentLsn(): Promise<bigint> {
    if (this.lsnQueued) return this.lsnQueued;
    const start = (): Promise<bigint> => {
      const p = queryLsn(this.primaryPool).finally(() => {
        if (this.lsnInFlight === p) this.lsnInFlight = null;
      });
      this.lsnInFlight = p;
      return p;
    };
    if (!this.lsnInFlight) return start();
    const queued = this.lsnInFlight
      .catch(() => undefined)
      .then(() => {
        this.lsnQueued = null;
        return start();
      });
    this.lsnQueued = queued;
    return queued;
  }

  async close(): Promise<void> {
    await this.replicaPool.end();
  }
}

async function queryLsn(pool: Pool): Promise<bigint> {
  const result = await pool.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  return parseLsn(result.rows[0].lsn);
}

/** The process's router, for the primary it was made for; replaced when asked for another (or when it failed). */
const routerSlot = () =>
  processSingleton("readRouter", (): { current?: { primary: Db; router: Promise<ReadRouter> } } => ({}));

/** The router of this process for the primary `db`, or undefined without DATABASE_REPLICA_URL (or on PGlite). */
export function readRouterFor(db: Db): Promise<ReadRouter> | undefined {
  const url = databaseReplicaUrl();
  if (!url) return undefined;
  const slot = routerSlot();
  if (slot.current?.primary !== db) {
    slot.current = { primary: db, router: createRouter(db, url) };
    slot.current.router.catch(() => {
      if (slot.current?.primary === db) slot.current = undefined;
    });
  }
  return slot.current.router;
}

async function createRouter(primaryDb: Db, url: string): Promise<ReadRouter> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const primaryPool = (primaryDb as unknown as { $client: Pool }).$client;
  const replicaPool = new pg.Pool({
    connectionString: url,
    max: pgPoolMax(),
    connectionTimeoutMillis: 1_000, // a replica that does not answer is skipped, the read goes to the primary
  });
  replicaPool.on("error", () => undefined);
  replicaPool.on("connect", (client) => client.on("error", () => undefined));
  const maxLag = replicaMaxLagMs();
  const ttl = maxLag + 1_000;
  const local = new MemoryWriteMarks(ttl);
  let marks: WriteMarks = local;
  const redis = sharedRedis();
  if (redis) {
    const { rows } = await primaryPool.query<{ db: string }>("SELECT current_database() AS db");
    marks = new RedisWriteMarks(redis, local, ttl, `${REDIS_PREFIX}${rows[0].db}:`);
  }
  return new ReadRouter(
    primaryDb,
    primaryPool,
    replicaPool,
    marks,
    maxLag,
    (client) => drizzle({ client: client as Pool, schema }) as unknown as Db,
  );
}

/** The executor for a listing read of a group: the replica when configured and fit (ReadRouter.readDb), else `db`. */
export async function readDbFor(db: Db, billingGroupId: string | null): Promise<Db> {
  const router = readRouterFor(db);
  if (!router) return db;
  try {
    return await (await router).readDb(billingGroupId);
  } catch {
    return db;
  }
}

/** After a committed write to a group (null: platform key): noted for read-your-writes; nothing without a replica. */
export async function noteWrite(db: Db, billingGroupId: string | null): Promise<void> {
  const router = readRouterFor(db);
  if (!router) return;
  await (await router).noteWrite(billingGroupId).catch(() => undefined);
}
