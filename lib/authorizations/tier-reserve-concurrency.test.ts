import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase, queryRows, type DbHandle } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createTestDatabase, POSTGRES_TEMPLATE_ENV } from "@/lib/testing/engines";
import { authorizeCall } from "./authorize";

// Reservations at every tier under real concurrency (docs/contract.md "Reseller tiers"): several connection pools on
// one PostgreSQL database (as several app processes have) authorize at once for two customers of one reseller and for
// the reseller itself. The reseller's tier lock decides, so its headroom is never reserved past, whoever reserves it.
const PROCESSES = 3;

const bound = (billingGroupId: string): Principal => ({
  keyId: "key_switch",
  scopes: new Set(["cdrs:write"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});

let seq = 0;
const uuid = () => `conc-tier-${process.pid}-${++seq}`;

describe("reservations at every tier under concurrent authorizations on PostgreSQL (several pools)", () => {
  let drop: () => Promise<void>;
  const pools: DbHandle[] = [];

  beforeAll(async () => {
    const created = await createTestDatabase(process.env[POSTGRES_TEMPLATE_ENV] || undefined);
    drop = created.drop;
    for (let i = 0; i < PROCESSES; i++) pools.push(await openDatabase({ url: created.url }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await drop?.();
  });

  async function account(parentId: string | null, rate: string, balance: bigint, credit: bigint) {
    const db = pools[0].db;
    const g = await createBillingGroup(db, {
      name: "Tier",
      currency: "USD",
      openingBalanceMicros: balance,
      creditLimitMicros: credit,
      parentId,
    });
    await importSellRates(db, g.id, parseRateCsv(`prefix,rate,increment\n44,${rate},1/1\n`));
    return g.id;
  }

  /** `n` one-minute authorizations at once, round robin over `groups`, spread over every connection of every pool. */
  async function burst(groups: string[], n: number): Promise<(number | string)[]> {
    const results: (number | string)[] = new Array(n);
    let next = 0;
    const worker = async (db: DbHandle["db"]) => {
      for (let i = next++; i < n; i = next++) {
        try {
          const r = await authorizeCall(db, bound(groups[i % groups.length]), {
            uuid: uuid(),
            destination: "4479",
            maxDurationSeconds: 60,
          });
          results[i] = r.authorization.maxDurationSeconds;
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          results[i] = e.code;
        }
      }
    };
    await Promise.all(pools.flatMap((p) => Array.from({ length: 10 }, () => worker(p.db))));
    return results;
  }

  /** What is open against the reseller: its own reservations and its subtree's holds at it. */
  async function openAt(reseller: string): Promise<bigint> {
    const [row] = await queryRows<{ own: string; held: string }>(
      pools[1].db,
      sql`SELECT (SELECT coalesce(sum(reserved_micros), 0) FROM authorizations
                   WHERE billing_group_id = ${reseller} AND settled_at IS NULL AND expires_at > now())::text AS own,
                 tier_held(${reseller})::text AS held`,
    );
    return BigInt(row.own) + BigInt(row.held);
  }

  it("admits exactly what the reseller's headroom covers at its own deck, whichever of its subtree asks, and again once freed", async () => {
    // The reseller pays 0.30/min: a one-minute grant (61 s reserved) holds 0.305 at it; its headroom is five of them.
    const reseller = await account(null, "0.30", 0n, 1_525_000n);
    const one = await account(reseller, "0.60", 1_000_000_000n, 0n);
    const two = await account(reseller, "0.90", 1_000_000_000n, 0n);
    const groups = [one, two, reseller];

    const results = await burst(groups, 90);
    expect(results.filter((r) => r === 60)).toHaveLength(5);
    expect(results.filter((r) => r === "insufficient_balance")).toHaveLength(85);
    expect(await openAt(reseller)).toBe(1_525_000n);

    // Expired, the grants hold nothing at any tier: five more, and again exactly five.
    // As time would: the authorizations' expires_at and their holds' copy pass together.
    await pools[2].db.execute(
      sql`UPDATE authorizations SET expires_at = now() - interval '1 second'
          WHERE billing_group_id IN (${one}, ${two}, ${reseller})`,
    );
    await pools[2].db.execute(
      sql`UPDATE authorization_tier_holds SET expires_at = now() - interval '1 second' WHERE tier_group_id = ${reseller}`,
    );
    expect(await openAt(reseller)).toBe(0n);
    const again = await burst(groups, 60);
    expect(again.filter((r) => r === 60)).toHaveLength(5);
    expect(await openAt(reseller)).toBe(1_525_000n);
  });
});
