import type { Pool } from "pg";
import { describe, expect, it, vi } from "vitest";
import type { Db } from "./client";
import { LagClock, lsnKey, MemoryWriteMarks, parseLsn, ReadRouter, RedisWriteMarks } from "./read-replica";

describe("WAL positions", () => {
  it("parse as 64-bit numbers and key in WAL order as fixed-width hex", () => {
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("16/B374D848")).toBe(0x16b374d848n);
    expect(parseLsn("FFFFFFFF/FFFFFFFF")).toBe((1n << 64n) - 1n);
    expect(() => parseLsn("16B374D848")).toThrow();
    const ordered = ["0/FFFFFFFF", "1/0", "A/1", "10/0"].map((t) => lsnKey(parseLsn(t)));
    expect([...ordered].sort()).toEqual(ordered); // string order (Redis's Lua compares strings) is WAL order
  });
});

describe("LagClock", () => {
  it("bounds the replica's staleness by the age of the newest primary sample it has replayed", () => {
    const clock = new LagClock();
    expect(clock.staleness(100n, 0)).toBe(Infinity); // nothing sampled: unknown
    clock.addPrimary(1_000, 100n);
    clock.addPrimary(2_000, 200n);
    clock.addPrimary(3_000, 300n);
    expect(clock.staleness(99n, 3_500)).toBe(Infinity);
    expect(clock.staleness(250n, 3_500)).toBe(1_500); // has what the primary had at 2 000, not yet at 3 000
    expect(clock.staleness(300n, 3_500)).toBe(500);
    // replay paused at 300 while the primary moves on: the bound grows with the clock
    clock.addPrimary(4_000, 400n);
    expect(clock.staleness(300n, 20_000)).toBe(17_000);
  });
});

describe("MemoryWriteMarks", () => {
  it("a group's readers need its own writes and platform writes; platform readers need every write; marks expire after the lag bound", async () => {
    let now = 0;
    const marks = new MemoryWriteMarks(1_000, () => now);
    await marks.note("grp_a", 500n);
    await marks.note("grp_a", 400n); // a late, older position never lowers the mark
    expect(await marks.required("grp_a")).toBe(500n);
    expect(await marks.required("grp_b")).toBe(0n);
    expect(await marks.required(null)).toBe(500n);
    await marks.note(null, 600n);
    expect(await marks.required("grp_b")).toBe(600n);
    expect(await marks.required(null)).toBe(600n);
    now = 2_000;
    expect(await marks.required("grp_a")).toBe(0n);
    expect(await marks.required(null)).toBe(0n);
  });
});

describe("RedisWriteMarks", () => {
  const store = new Map<string, string>();
  const fake = {
    up: true,
    async eval(_script: string, numKeys: number, ...args: (string | number)[]) {
      if (!this.up) throw new Error("down");
      const keys = args.slice(0, numKeys) as string[];
      const value = String(args[numKeys]);
      for (const k of keys) if (!store.has(k) || store.get(k)! < value) store.set(k, value);
      return 1;
    },
    async mget(...keys: string[]) {
      if (!this.up) throw new Error("down");
      return keys.map((k) => store.get(k) ?? null);
    },
  };

  it("two processes agree through Redis; a reader that cannot ask Redis reads the primary", async () => {
    const a = new RedisWriteMarks(fake, new MemoryWriteMarks(60_000), 60_000);
    const b = new RedisWriteMarks(fake, new MemoryWriteMarks(60_000), 60_000);
    await a.note("grp_a", 0x1234n);
    expect(await b.required("grp_a")).toBe(0x1234n);
    expect(await b.required("grp_b")).toBe(0n);
    expect(await b.required(null)).toBe(0x1234n);
    await b.note(null, 0x2000n);
    expect(await a.required("grp_b")).toBe(0x2000n);
    fake.up = false;
    expect(await b.required("grp_b")).toBe((1n << 64n) - 1n);
    await a.note("grp_a", 0x3000n); // not shared, but this process still knows it
    fake.up = true;
    expect(await a.required("grp_a")).toBe(0x3000n);
  });
});

/** A pg pool stand-in: answers the WAL probes from `lsn`, records other statements, fails as told. */
function fakePool(name: string, lsn: { value: string | null }, log: string[]) {
  const state = { down: false, failAt: "" as string };
  const fail = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
  const run = async (config: unknown) => {
    const text = typeof config === "string" ? config : (config as { text: string }).text;
    if (state.down || (state.failAt && text.includes(state.failAt))) throw fail();
    if (/pg_current_wal_lsn|pg_last_wal_replay_lsn/.test(text)) return { rows: [{ lsn: lsn.value }] };
    if (/syntax error/.test(text)) throw Object.assign(new Error("syntax error"), { code: "42601" });
    log.push(`${name}: ${text}`);
    return { rows: [{ from: name }] };
  };
  const pool = {
    query: vi.fn(run),
    async connect() {
      if (state.down) throw fail();
      return { query: run, release: () => undefined };
    },
    async end() {},
  };
  return { pool: pool as unknown as Pool, state, calls: pool.query };
}

function router(maxLagMs = 10_000) {
  const log: string[] = [];
  const primaryLsn = { value: "0/100" };
  const replayLsn = { value: "0/100" as string | null };
  const primary = fakePool("primary", primaryLsn, log);
  const replica = fakePool("replica", replayLsn, log);
  const primaryDb = { name: "primaryDb" } as unknown as Db;
  let fallbackPool:
    | {
        query(text: string): Promise<{ rows: { from: string }[] }>;
        connect(): Promise<{ query(text: string): Promise<{ rows: { from: string }[] }>; release(): void }>;
      }
    | undefined;
  const r = new ReadRouter(
    primaryDb,
    primary.pool,
    replica.pool,
    new MemoryWriteMarks(maxLagMs + 1_000),
    maxLagMs,
    (client) => {
      fallbackPool = client as typeof fallbackPool;
      return { name: "replicaDb" } as unknown as Db;
    },
  );
  return { r, log, primaryLsn, replayLsn, primary, replica, primaryDb, fallback: () => fallbackPool! };
}

describe("ReadRouter", () => {
  it("reads the replica until the group's own write is past its replay position, then the primary until it catches up", async () => {
    const t = router();
    const g1 = "grp_1";
    expect(await t.r.readDb(g1)).toBe(t.r.replicaDb);
    t.primaryLsn.value = "0/200"; // the group's ingest committed up to here
    await t.r.noteWrite("grp_1");
    expect(await t.r.readDb(g1)).toBe(t.primaryDb); // replica still at 0/100
    expect(await t.r.readDb("grp_2")).toBe(t.r.replicaDb); // other groups are not held back
    t.replayLsn.value = "0/200";
    expect(await t.r.readDb(g1)).toBe(t.r.replicaDb); // asks the replica again before giving up
    await t.r.noteWrite(null); // a platform key's write (no group) holds back every group
    t.primaryLsn.value = "0/300";
    await t.r.noteWrite(null);
    expect(await t.r.readDb("grp_2")).toBe(t.primaryDb);
    expect(await t.r.readDb(null)).toBe(t.primaryDb);
  });

  it("concurrent writes share one WAL position query started after they asked", async () => {
    const t = router();
    await t.r.readDb("grp_1");
    t.primary.calls.mockClear();
    await Promise.all(Array.from({ length: 20 }, () => t.r.noteWrite("grp_1")));
    expect(t.primary.calls.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("a replica that is down or not in recovery is not used; a failing query falls back to the primary, other errors do not", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const t = router();
      t.replica.state.down = true;
      expect(await t.r.readDb("grp_1")).toBe(t.primaryDb);
      expect(stderr).toHaveBeenCalledTimes(1); // one log line per outage

      const u = router();
      u.replayLsn.value = null; // pg_last_wal_replay_lsn() is null on a primary
      expect(await u.r.readDb("grp_1")).toBe(u.primaryDb);

      const v = router();
      expect(await v.r.readDb("grp_1")).toBe(v.r.replicaDb);
      v.replica.state.down = true;
      expect((await v.fallback().query("SELECT calls")).rows[0].from).toBe("primary");
      expect(await v.r.readDb("grp_1")).toBe(v.primaryDb); // skipped for a while
      v.replica.state.down = false;
      await expect(v.fallback().query("syntax error")).rejects.toMatchObject({ code: "42601" });
    } finally {
      stderr.mockRestore();
    }
  });

  it("a read-only transaction the replica drops midway is replayed on the primary", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const t = router();
      const client = await t.fallback().connect();
      await client.query("begin");
      await client.query("SET LOCAL jit = off");
      t.replica.state.failAt = "SELECT usage";
      expect((await client.query("SELECT usage")).rows[0].from).toBe("primary");
      await client.query("commit");
      client.release();
      expect(t.log).toEqual([
        "replica: begin",
        "replica: SET LOCAL jit = off",
        "primary: begin",
        "primary: SET LOCAL jit = off",
        "primary: SELECT usage",
        "primary: commit",
      ]);
    } finally {
      stderr.mockRestore();
    }
  });

  it("a replica behind the lag bound is not used", async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ["Date"] });
    try {
      const t = router(1_500);
      expect(await t.r.readDb("grp_1")).toBe(t.r.replicaDb);
      t.primaryLsn.value = "0/900"; // the primary moves on, the replica does not
      vi.setSystemTime(1_000_300);
      expect(await t.r.readDb("grp_1")).toBe(t.r.replicaDb); // 300 ms behind at most
      vi.setSystemTime(1_002_000);
      expect(await t.r.readDb("grp_1")).toBe(t.primaryDb);
      t.replayLsn.value = "0/900";
      vi.setSystemTime(1_002_300);
      await t.r.readDb("grp_1"); // probes: the replica has now replayed what the primary had at 1 002 300
      vi.setSystemTime(1_002_600);
      expect(await t.r.readDb("grp_1")).toBe(t.r.replicaDb);
    } finally {
      vi.useRealTimers();
    }
  });
});
