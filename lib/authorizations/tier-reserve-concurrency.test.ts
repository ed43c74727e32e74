import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase, queryRows, type Db, type DbHandle } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createTestDatabase, POSTGRES_TEMPLATE_ENV } from "@/lib/testing/engines";
import { authorizeCall } from "./authorize";

// Reservations at every tier under real concurrency (docs/contract.md "Reseller tiers"): several connection pools on
// one PostgreSQL database (as several app processes have) authorize at once for two customers of one reseller and for
// the reseller itself. The reseller's tier lock decides, so its headroom is never reserved past, whoever reserves it.
// Then one subtree under everything at once: authorizations while the granted calls' CDRs are ingested (settling
// them: every tier debited, its hold freed) and other grants expire, a sampler reading every tier's headroom
// (tier_headroom, the figure authorization reserves against) in one snapshot again and again while the work runs.
const PROCESSES = 3;
const ATTEMPTS = 72;

const bound = (billingGroupId: string): Principal => ({
  keyId: "key_switch",
  scopes: new Set(["cdrs:write"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});

let seq = 0;
const uuid = () => `conc-tier-${process.pid}-${++seq}`;

describe("reservations at every tier under concurrent authorizations, ingest and expiry on PostgreSQL (several pools)", () => {
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

  /** The CDR of a granted call, answered for `seconds` (no longer than granted), ending a minute ago. */
  function cdrOf(groupId: string, uuid: string, seconds: number) {
    const end = Date.now() - 60_000;
    return nativeCdrSchema.parse({
      uuid,
      billingGroupId: groupId,
      direction: "outbound",
      from: "1",
      to: "4479000",
      startTime: new Date(end - seconds * 1000).toISOString(),
      answerTime: new Date(end - seconds * 1000).toISOString(),
      endTime: new Date(end).toISOString(),
    });
  }

  /** Expiry as time brings it: the authorization's expires_at and its holds' copy pass together. */
  async function expire(db: Db, groupId: string, uuid: string) {
    await db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE authorizations SET expires_at = now() - interval '1 second'
                           WHERE billing_group_id = ${groupId} AND uuid = ${uuid}`);
      await tx.execute(sql`UPDATE authorization_tier_holds SET expires_at = now() - interval '1 second'
                           WHERE billing_group_id = ${groupId} AND uuid = ${uuid}`);
    });
  }

  it("keeps every tier within its headroom and its books, and frees every hold", { timeout: 300_000 }, async () => {
    // The reseller pays 0.30/min (0.005/s): 3.00 of balance and 1.00 of credit, 4.00 of headroom. A one-minute grant
    // holds 61 s of it (0.305); a settled 30 s call debits it 0.15. Its customers pay 0.60/min, 0.90/min, 1.20/min.
    const reseller = await account(null, "0.30", 3_000_000n, 1_000_000n);
    const customers = [
      await account(reseller, "0.60", 50_000_000n, 0n),
      await account(reseller, "0.90", 50_000_000n, 0n),
      await account(reseller, "1.20", 50_000_000n, 1_000_000n),
    ];
    const tiers = [reseller, ...customers];
    const inTiers = sql.join(
      tiers.map((t) => sql`${t}`),
      sql`, `,
    );

    const outcomes: string[] = [];
    const granted: { groupId: string; uuid: string; seconds: number }[] = [];
    let next = 0;
    let running = 0;
    const worker = async (db: Db) => {
      running++;
      try {
        for (let i = next++; i < ATTEMPTS; i = next++) {
          const groupId = customers[i % customers.length];
          const uuid = `tier-ingest-${process.pid}-${i}`;
          let seconds: number;
          try {
            const r = await authorizeCall(db, bound(groupId), { uuid, destination: "4479000", maxDurationSeconds: 60 });
            seconds = r.authorization.maxDurationSeconds;
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            outcomes.push(e.code);
            continue;
          }
          outcomes.push("granted");
          granted.push({ groupId, uuid, seconds });
          // Every third grant lapses unused; the others' CDRs arrive (answered up to 30 s), settling them.
          if (i % 3 === 0) await expire(db, groupId, uuid);
          else
            await ingestCdrs(db, [cdrOf(groupId, uuid, Math.min(30, seconds))], { restrictToBillingGroupId: groupId });
        }
      } finally {
        running--;
      }
    };

    // The sampler: every tier's balance, credit limit and headroom in one snapshot, until the workers are done.
    const lowest = new Map<string, { headroom: bigint; aboveLimit: boolean }>();
    let samples = 0;
    const sampler = async () => {
      while (running > 0 || samples === 0) {
        const rows = await queryRows<{ id: string; b: string; c: string; h: string }>(
          pools[0].db,
          sql`SELECT id, balance_micros::text AS b, credit_limit_micros::text AS c,
                     tier_headroom(id, balance_micros, credit_limit_micros)::text AS h
              FROM billing_groups WHERE id IN (${inTiers})`,
        );
        samples++;
        for (const r of rows) {
          const seen = lowest.get(r.id);
          const headroom = BigInt(r.h);
          const aboveLimit = BigInt(r.b) >= -BigInt(r.c);
          lowest.set(r.id, {
            headroom: seen && seen.headroom < headroom ? seen.headroom : headroom,
            aboveLimit: (seen?.aboveLimit ?? true) && aboveLimit,
          });
        }
      }
    };

    const workers = pools.flatMap((p) => Array.from({ length: 4 }, () => worker(p.db)));
    await Promise.all([...workers, sampler()]);

    expect(outcomes).toHaveLength(ATTEMPTS);
    // The reseller's headroom ran out on the way: some grants, some refusals (nothing else).
    expect(granted.length).toBeGreaterThan(5);
    expect(outcomes.filter((o) => o !== "granted").every((o) => o === "insufficient_balance")).toBe(true);
    expect(outcomes.some((o) => o === "insufficient_balance")).toBe(true);
    // No committed state ever showed a tier past its headroom or its credit limit.
    expect(samples).toBeGreaterThan(1);
    for (const t of tiers) expect(lowest.get(t)).toEqual({ headroom: expect.any(BigInt), aboveLimit: true });
    for (const t of tiers) expect(lowest.get(t)!.headroom >= 0n).toBe(true);

    // Afterwards: every tier's balance is its ledger and within its credit limit; nothing is held any more.
    const books = await queryRows<{ id: string; b: string; c: string; l: string; h: string }>(
      pools[1].db,
      sql`SELECT g.id, g.balance_micros::text AS b, g.credit_limit_micros::text AS c,
            (SELECT coalesce(sum(l.amount_micros), 0) FROM ledger_entries l WHERE l.billing_group_id = g.id)::text AS l,
            tier_headroom(g.id, g.balance_micros, g.credit_limit_micros)::text AS h
          FROM billing_groups g WHERE g.id IN (${inTiers})`,
    );
    for (const r of books) {
      expect(r.l).toBe(r.b);
      expect(BigInt(r.b) >= -BigInt(r.c)).toBe(true);
      // Nothing open: the headroom is the balance plus the credit limit again.
      expect(BigInt(r.h)).toBe(BigInt(r.b) + BigInt(r.c));
    }
    const [open] = await queryRows<{ holds: string; auths: string }>(
      pools[1].db,
      sql`SELECT (SELECT count(*) FROM authorization_tier_holds WHERE expires_at > now() AND tier_group_id IN (${inTiers}))::text AS holds,
                 (SELECT count(*) FROM authorizations WHERE settled_at IS NULL AND expires_at > now()
                   AND billing_group_id IN (${inTiers}))::text AS auths`,
    );
    expect(open).toEqual({ holds: "0", auths: "0" });
    // Each settled call debited the reseller its own price: 0.005/s of the seconds billed.
    const billed = granted
      .filter((g) => Number(g.uuid.split("-").at(-1)) % 3 !== 0)
      .reduce((sum, g) => sum + BigInt(Math.min(30, g.seconds)) * 5_000n, 0n);
    const r = books.find((x) => x.id === reseller)!;
    expect(BigInt(r.b)).toBe(3_000_000n - billed);
  });
});
