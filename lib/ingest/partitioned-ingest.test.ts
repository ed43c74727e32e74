import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { CdrConflictError, ingestCdrs } from "./ingest-cdrs";
import { nativeCdrSchema, type NativeCdrInput } from "./schemas";

// calls is partitioned by month on start_time (migration 0008), so no unique index on calls can hold the uuid alone:
// call_uuids keeps (group, uuid) unique. These tests pin what that must not change.

let seq = 0;
function cdr(overrides: Partial<NativeCdrInput> = {}) {
  seq++;
  return nativeCdrSchema.parse({
    uuid: `part-${process.pid}-${seq}-${Math.random().toString(36).slice(2)}`,
    direction: "outbound",
    from: "4930123456",
    to: "442071234567",
    startTime: "2025-03-01T10:00:00Z",
    answerTime: "2025-03-01T10:00:05Z",
    endTime: "2025-03-01T10:01:05Z",
    ...overrides,
  });
}

/** The same call shifted by `ms` (start, answer and end): same length, same price, another start. */
function shifted(input: ReturnType<typeof cdr>, ms: number) {
  const move = (iso: string | null) => (iso === null ? null : new Date(Date.parse(iso) + ms).toISOString());
  return nativeCdrSchema.parse({
    ...input,
    startTime: move(input.startTime),
    answerTime: move(input.answerTime),
    endTime: move(input.endTime),
  });
}

describeOnEngines("ingest into the partitioned calls table", (handle) => {
  async function group() {
    const g = await createBillingGroup(handle().db, { name: "P", currency: "EUR", openingBalanceMicros: 10_000_000n });
    await importSellRates(handle().db, g.id, parseRateCsv("prefix,rate,increment\n44,0.06,1/1\n"));
    return g;
  }
  const stored = async (groupId: string) =>
    queryRows<{ id: string; uuid: string; start: string; part: string }>(
      handle().db,
      sql`SELECT id::text AS id, uuid, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS start, tableoid::regclass::text AS part
          FROM calls WHERE billing_group_id = ${groupId} ORDER BY id`,
    );
  const ledger = async (groupId: string) =>
    queryRows<{ kind: string; amount: string }>(
      handle().db,
      sql`SELECT kind, amount_micros::text AS amount FROM ledger_entries WHERE billing_group_id = ${groupId} AND kind <> 'opening' ORDER BY id`,
    );

  it("answers a replay with another startTime (other month too) with a conflict, never a second stored or charged call", async () => {
    const g = await group();
    const input = cdr({ billingGroupId: g.id });
    const [first] = await ingestCdrs(handle().db, [input]);
    expect(first.status).toBe("created");
    const balance = (await getBillingGroup(handle().db, g.id))!.balanceMicros;

    for (const ms of [1000, 40 * 86_400_000, -400 * 86_400_000]) {
      const replay = shifted(input, ms);
      const error = await ingestCdrs(handle().db, [replay]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CdrConflictError);
      expect((error as CdrConflictError).fields).toEqual(["startTime", "answerTime", "endTime"]);
      // Also inside a batch with a new call: the whole batch is refused.
      const batch = await ingestCdrs(handle().db, [cdr({ billingGroupId: g.id }), replay]).catch((e: unknown) => e);
      expect(batch).toBeInstanceOf(CdrConflictError);
    }
    expect((await stored(g.id)).map((c) => c.uuid)).toEqual([input.uuid]);
    expect(await ledger(g.id)).toEqual([{ kind: "debit", amount: "-60000" }]);
    expect((await getBillingGroup(handle().db, g.id))!.balanceMicros).toBe(balance);
    // The exact replay is still a duplicate.
    const [again] = await ingestCdrs(handle().db, [input]);
    expect(again.status).toBe("duplicate");
    expect(again.call).toEqual(first.call);
  });

  it("stores each call in its month's partition, creating the month on first sight; ids keep growing in batch order", async () => {
    const g = await group();
    const inputs = [
      cdr({
        billingGroupId: g.id,
        startTime: "1999-12-31T23:59:00Z",
        answerTime: null,
        endTime: "1999-12-31T23:59:30Z",
      }),
      cdr({
        billingGroupId: g.id,
        startTime: "2000-01-01T00:00:00Z",
        answerTime: null,
        endTime: "2000-01-01T00:00:30Z",
      }),
      cdr({
        billingGroupId: g.id,
        startTime: "2000-02-29T12:00:00Z",
        answerTime: null,
        endTime: "2000-02-29T12:00:30Z",
      }),
    ];
    const out = await ingestCdrs(handle().db, inputs);
    const ids = out.map((o) => o.call.id);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    expect((await stored(g.id)).map((c) => [c.start, c.part])).toEqual([
      ["1999-12-31T23:59:00", "calls_p199912"],
      ["2000-01-01T00:00:00", "calls_p200001"],
      ["2000-02-29T12:00:00", "calls_p200002"],
    ]);
    const later = await ingestCdrs(handle().db, [
      cdr({
        billingGroupId: g.id,
        startTime: "2000-01-15T00:00:00Z",
        answerTime: null,
        endTime: "2000-01-15T00:00:10Z",
      }),
    ]);
    expect(later[0].call.id > ids[2]).toBe(true);
  });

  it("keeps a call of a month without partition in calls_default, and ensure_call_partitions moves it out with its rollups intact", async () => {
    const g = await group();
    // Straight into the table, as a maintenance job or another writer might: the month has no partition yet.
    await handle().db
      .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
        duration, bill_duration, currency, rated, price_micros)
      VALUES ('orphan-${sql.raw(String(seq))}', ${g.id}, 'outbound', '1', '44', '1987-06-05T04:03:02Z', '1987-06-05T04:04:02Z', 60, 60, 'EUR', true, 123)`);
    expect((await stored(g.id)).map((c) => c.part)).toEqual(["calls_default"]);
    const usage = sql`SELECT sum(calls)::text AS calls, sum(price_micros)::text AS price FROM usage_hourly WHERE billing_group_id = ${g.id}`;
    expect(await queryRows(handle().db, usage)).toEqual([{ calls: "1", price: "123" }]);

    const [{ created }] = await queryRows<{ created: number }>(
      handle().db,
      sql`SELECT ensure_call_partitions('1987-06-01T00:00:00Z', '1987-07-01T00:00:00Z') AS created`,
    );
    expect(created).toBe(1);
    expect((await stored(g.id)).map((c) => [c.start, c.part])).toEqual([["1987-06-05T04:03:02", "calls_p198706"]]);
    expect(await queryRows(handle().db, usage)).toEqual([{ calls: "1", price: "123" }]);
    // Idempotent: nothing more to create.
    expect(
      await queryRows(
        handle().db,
        sql`SELECT ensure_call_partitions('1987-06-01T00:00:00Z', '1987-07-01T00:00:00Z') AS created`,
      ),
    ).toEqual([{ created: 0 }]);
  });

  it("has a partition for last month to three months ahead as soon as the database is open", async () => {
    const parts = await queryRows<{ name: string }>(
      handle().db,
      sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'calls'::regclass`,
    );
    const names = new Set(parts.map((p) => p.name));
    const now = new Date();
    for (let k = -1; k <= 3; k++) {
      const m = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1));
      expect(names).toContain(`calls_p${m.getUTCFullYear()}${String(m.getUTCMonth() + 1).padStart(2, "0")}`);
    }
    expect(names).toContain("calls_default");
  });
});
