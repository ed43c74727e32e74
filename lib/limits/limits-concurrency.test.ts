import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeCall } from "@/lib/authorizations/authorize";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase, queryRows, type DbHandle } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createTestDatabase, POSTGRES_TEMPLATE_ENV } from "@/lib/testing/engines";
import { activeReservations } from "./enforce";
import { putLimits } from "./manage-limits";
import { limitsBodySchema } from "./schemas";

// The limits under real concurrency: several connection pools on one PostgreSQL database (as several app processes
// have), each with its own connections, authorizing on one account at once. The group's row lock decides, so the counts
// are exact without Redis.
const PROCESSES = 3;

const bound = (billingGroupId: string): Principal => ({
  keyId: "key_switch",
  scopes: new Set(["cdrs:write"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});
const platform: Principal = { ...bound("x"), keyId: "key_platform", billingGroupId: null };

let seq = 0;
const uuid = () => `conc-lim-${process.pid}-${++seq}`;

async function outcome(p: Promise<{ authorization: { maxDurationSeconds: number } }>): Promise<number | string> {
  try {
    return (await p).authorization.maxDurationSeconds;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

describe("limits under concurrent authorizations on PostgreSQL (several pools)", () => {
  let drop: () => Promise<void>;
  const pools: DbHandle[] = [];

  beforeAll(async () => {
    const created = await createTestDatabase(process.env[POSTGRES_TEMPLATE_ENV] || undefined);
    drop = created.drop;
    // One at a time: the first applies the migrations when there is no migrated template.
    for (let i = 0; i < PROCESSES; i++) pools.push(await openDatabase({ url: created.url }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await drop?.();
  });

  async function group(limits: Record<string, unknown>, balance = 1_000_000_000n) {
    const db = pools[0].db;
    const g = await createBillingGroup(db, { name: "Busy", currency: "USD", openingBalanceMicros: balance });
    await importSellRates(db, g.id, parseRateCsv("prefix,rate,increment\n44,0.60,1/1\n"));
    await putLimits(db, platform, limitsBodySchema.parse({ billingGroupId: g.id, ...limits }), {
      actor: { type: "cli", id: null, label: "test" },
      address: null,
    });
    return g;
  }

  /**
   * `n` authorizations at once, spread over the pools: each pool's every connection (PG_POOL_MAX, 10) keeps one in
   * flight, so 30 transactions contend for the group's row at any moment, and none waits past the pool's 5 s connect
   * timeout on a busy machine (an app process answers such a wait 503).
   */
  async function burst(
    groupId: string,
    n: number,
    destination: (i: number) => string = () => "4479",
  ): Promise<(number | string)[]> {
    const results: (number | string)[] = new Array(n);
    let next = 0;
    const worker = async (db: DbHandle["db"]) => {
      for (let i = next++; i < n; i = next++) {
        results[i] = await outcome(
          authorizeCall(db, bound(groupId), { uuid: uuid(), destination: destination(i), maxDurationSeconds: 60 }),
        );
      }
    };
    await Promise.all(pools.flatMap((p) => Array.from({ length: 10 }, () => worker(p.db))));
    return results;
  }

  it("admits exactly 30 of 500 concurrent authorizations against a cap of 30 calls, and frees the slots on expiry", async () => {
    const g = await group({ maxConcurrentCalls: 30 });
    const results = await burst(g.id, 500);
    expect(results.filter((r) => r === 60)).toHaveLength(30);
    expect(results.filter((r) => r === "concurrent_calls_limit")).toHaveLength(470);
    const [refused] = await queryRows<{ n: number | string }>(
      pools[1].db,
      sql`SELECT count(*) AS n FROM authorization_refusals WHERE billing_group_id = ${g.id}`,
    );
    expect(Number(refused.n)).toBe(470);
    expect((await activeReservations(pools[0].db, g.id)).count).toBe(30);
    // Nothing leaks: once the grants expire, 30 more are admitted, and again exactly 30.
    await pools[2].db.execute(
      sql`UPDATE authorizations SET expires_at = now() - interval '1 second' WHERE billing_group_id = ${g.id}`,
    );
    const again = await burst(g.id, 100);
    expect(again.filter((r) => r === 60)).toHaveLength(30);
  });

  it("admits at most 5 in any one-second window against a cap of 5 calls per second", async () => {
    const g = await group({ callsPerSecond: 5 });
    const started = Date.now();
    const results: (number | string)[] = [];
    // About 2.5 s of bursts, so windows slide over several seconds.
    while (Date.now() - started < 2_500) results.push(...(await burst(g.id, 30)));
    const granted = results.filter((r) => r === 60).length;
    expect(granted).toBeGreaterThanOrEqual(10);
    const [worst] = await queryRows<{ n: number | string }>(
      pools[0].db,
      sql`SELECT max((SELECT count(*) FROM authorizations b WHERE b.billing_group_id = a.billing_group_id
            AND b.created_at > a.created_at - interval '1 second' AND b.created_at <= a.created_at)) AS n
          FROM authorizations a WHERE a.billing_group_id = ${g.id}`,
    );
    expect(Number(worst.n)).toBe(5);
  });

  it("admits exactly 7 distinct destinations and 40 calls to a prefix of 500 concurrent authorizations", async () => {
    const g = await group({
      distinctDestinations: { max: 7, windowSeconds: 600 },
      callsPerPrefix: { max: 40, windowSeconds: 600 },
    });
    const destinations = (i: number) => `44${100 + (i % 20)}`;
    const results = await burst(g.id, 500, destinations);
    expect(results.filter((r) => r === 60)).toHaveLength(40);
    expect(results.filter((r) => r === "velocity_limit")).toHaveLength(460);
    const [admitted] = await queryRows<{ n: number | string; d: number | string }>(
      pools[1].db,
      sql`SELECT count(*) AS n, count(DISTINCT destination) AS d FROM authorizations WHERE billing_group_id = ${g.id}`,
    );
    expect({ n: Number(admitted.n), d: Number(admitted.d) }).toEqual({ n: 40, d: 7 });
  });

  it("never lets open reservations exceed the daily cap under 500 concurrent authorizations", async () => {
    const g = await group({ dailySpend: "10.00" });
    const results = await burst(g.id, 500);
    // 0.61 per full grant: 16 fit in 10.00 (9.76), the 17th gets the 0.24 left (23 s), then the cap refuses.
    expect(results.filter((r) => r === 60)).toHaveLength(16);
    expect(results.filter((r) => typeof r === "number" && r !== 60)).toEqual([23]);
    expect(results.filter((r) => r === "daily_spend_limit")).toHaveLength(483);
    expect((await activeReservations(pools[1].db, g.id)).totalMicros).toBe(10_000_000n);
  });
});
