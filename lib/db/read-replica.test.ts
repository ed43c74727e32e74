import { describe, expect, it } from "vitest";
import { LagClock, lsnKey, MemoryWriteMarks, parseLsn, RedisWriteMarks } from "./read-replica";

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
