import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { authorizeCall } from "@/lib/authorizations/authorize";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { updateAccount } from "@/lib/billing/update-account";
import type { ChangeContext } from "@/lib/billing/change-context";
import { queryRows } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { recordingDb } from "@/lib/testing/recording-db";
import { activeReservations } from "./enforce";
import { listRefusals } from "./list-refusals";
import { putLimits, readLimits } from "./manage-limits";
import { limitsBodySchema } from "./schemas";

const principal = (billingGroupId: string | null): Principal => ({
  keyId: billingGroupId ? "key_customer" : "key_platform",
  scopes: new Set(["cdrs:write", "limits:write", "calls:read"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});
const by: ChangeContext = { actor: { type: "cli", id: null, label: "test" }, address: null };

let seq = 0;
const uuid = () => `lim-${process.pid}-${++seq}`;

/** The answer's code, or the granted seconds. */
async function outcome(p: Promise<{ authorization: { maxDurationSeconds: number } }>): Promise<number | string> {
  try {
    return (await p).authorization.maxDurationSeconds;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

describeOnEngines("account limits at authorization", (handle, engine) => {
  /** 100.00 balance; 44 at 0.60/min per second, 4490 (premium) at 6.00/min, 1 at 0.06/min. */
  async function group() {
    const g = await createBillingGroup(handle().db, {
      name: "Limited",
      currency: "USD",
      openingBalanceMicros: 100_000_000n,
    });
    await importSellRates(
      handle().db,
      g.id,
      parseRateCsv("prefix,rate,increment\n44,0.60,1/1\n4490,6.00,1/1\n1,0.06,1/1\n"),
    );
    return g;
  }
  const set = (groupId: string, customer: boolean, limits: Record<string, unknown>) =>
    putLimits(
      handle().db,
      principal(customer ? groupId : null),
      limitsBodySchema.parse({ ...limits, ...(customer ? {} : { billingGroupId: groupId }) }),
      by,
    );
  const authorize = (groupId: string, destination = "4479", id = uuid()) =>
    outcome(authorizeCall(handle().db, principal(groupId), { uuid: id, destination, maxDurationSeconds: 60 }));

  it("holds a slot per call in progress; the CDR or the expiry frees it, and a refusal reserves nothing", async () => {
    const g = await group();
    await set(g.id, false, { maxConcurrentCalls: 2 });
    const first = uuid();
    expect(await authorize(g.id, "4479", first)).toBe(60);
    expect(await authorize(g.id)).toBe(60);
    const reservedBefore = (await activeReservations(handle().db, g.id)).totalMicros;
    expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    expect((await activeReservations(handle().db, g.id)).totalMicros).toBe(reservedBefore);
    // The first call's CDR settles it: its slot is free in the same transaction.
    const start = new Date(Date.now() - 30_000);
    await ingestCdrs(
      handle().db,
      [
        nativeCdrSchema.parse({
          uuid: first,
          billingGroupId: g.id,
          direction: "outbound",
          from: "1",
          to: "4479",
          startTime: start.toISOString(),
          answerTime: start.toISOString(),
          endTime: new Date(start.getTime() + 10_000).toISOString(),
        }),
      ],
      { restrictToBillingGroupId: g.id },
    );
    expect(await authorize(g.id)).toBe(60);
    expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    // An expired authorization holds nothing.
    await handle().db.execute(
      sql`UPDATE authorizations SET expires_at = now() - interval '1 second' WHERE billing_group_id = ${g.id} AND settled_at IS NULL`,
    );
    expect((await readLimits(handle().db, principal(g.id), undefined)).usage.concurrentCalls).toBe(0);
    expect(await authorize(g.id)).toBe(60);
    const page = await listRefusals(handle().db, principal(g.id), {}, { pageSize: 10 });
    expect(page.refusals.map((r) => [r.code, r.limit, r.limitValue, r.currentValue])).toEqual([
      ["concurrent_calls_limit", "maxConcurrentCalls", "2", "2"],
      ["concurrent_calls_limit", "maxConcurrentCalls", "2", "2"],
    ]);
  });

  it("blocks prefixes and keeps to allow lists, the customer's adding to the operator's", async () => {
    const g = await group();
    await set(g.id, false, { blockedPrefixes: ["4490"], allowedPrefixes: ["44"] });
    expect(await authorize(g.id, "+449012")).toBe("destination_blocked");
    expect(await authorize(g.id, "1212")).toBe("destination_not_allowed");
    expect(await authorize(g.id, "4479")).toBe(60);
    await set(g.id, true, { allowedPrefixes: ["4420"] });
    expect(await authorize(g.id, "4479")).toBe("destination_not_allowed");
    expect(await authorize(g.id, "44201")).toBe(60);
  });

  it("lets a customer tighten the operator's numbers, never loosen them, and audits both layers", async () => {
    const g = await group();
    await set(g.id, false, { maxConcurrentCalls: 10, dailySpend: "5.00" });
    await expect(set(g.id, true, { maxConcurrentCalls: 11 })).rejects.toMatchObject({
      code: "invalid_request_body",
      errors: [{ param: "maxConcurrentCalls", message: "must not exceed the operator's limit (10)" }],
    });
    const limits = await set(g.id, true, { maxConcurrentCalls: 1, dailySpend: "2.50" });
    expect(limits.operator).toMatchObject({ maxConcurrentCalls: 10, dailySpend: 5 });
    expect(limits.customer).toMatchObject({ maxConcurrentCalls: 1, dailySpend: 2.5 });
    expect(await authorize(g.id)).toBe(60);
    expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    const events = await queryRows<{ layer: string }>(
      handle().db,
      sql`SELECT after->>'layer' AS layer FROM audit_events WHERE action = 'limits.updated' AND billing_group_id = ${g.id} ORDER BY id`,
    );
    expect(events.map((e) => e.layer)).toEqual(["operator", "customer"]);
  });

  it("gives the reseller its own layer on its customer: the operator's stays, every layer holds at authorization", async () => {
    const reseller = await group();
    const child = await createBillingGroup(handle().db, {
      name: "Child",
      parentId: reseller.id,
      openingBalanceMicros: 100_000_000n,
    });
    await importSellRates(handle().db, child.id, parseRateCsv("prefix,rate,increment\n44,0.90,1/1\n1,0.09,1/1\n"));
    const resellerKey: Principal = {
      ...principal(reseller.id),
      keyId: "key_reseller",
      reachGroupIds: [reseller.id, child.id],
    };
    const body = (limits: Record<string, unknown>) => limitsBodySchema.parse(limits);
    // The operator limits the customer; the reseller's write is its own layer and leaves the operator's as it was.
    await set(child.id, false, { maxConcurrentCalls: 3, blockedPrefixes: ["4490"] });
    const written = await putLimits(
      handle().db,
      resellerKey,
      body({ billingGroupId: child.id, maxConcurrentCalls: 2, blockedPrefixes: ["1"] }),
      by,
    );
    expect(written.operator).toMatchObject({ maxConcurrentCalls: 3, blockedPrefixes: ["4490"] });
    expect(written.provider).toMatchObject({ maxConcurrentCalls: 2, blockedPrefixes: ["1"] });
    expect(written.customer.maxConcurrentCalls).toBeNull();
    // Every layer holds: the reseller's block and its lower cap, the operator's block.
    expect(await authorize(child.id, "1555")).toBe("destination_blocked");
    expect(await authorize(child.id, "449012")).toBe("destination_blocked");
    expect(await authorize(child.id)).toBe(60);
    expect(await authorize(child.id)).toBe(60);
    expect(await authorize(child.id)).toBe("concurrent_calls_limit");
    // The reseller may not loosen the operator's number, nor carry the operator's fraud option.
    await expect(
      putLimits(handle().db, resellerKey, body({ billingGroupId: child.id, maxConcurrentCalls: 4 }), by),
    ).rejects.toMatchObject({
      code: "invalid_request_body",
      errors: [{ param: "maxConcurrentCalls", message: "must not exceed the operator's limit (3)" }],
    });
    await expect(
      putLimits(handle().db, resellerKey, body({ billingGroupId: child.id, disableOnFraud: true }), by),
    ).rejects.toMatchObject({ code: "invalid_request_body" });
    // The customer cannot lift its reseller's limit; the platform's write leaves the reseller's layer alone.
    await expect(
      putLimits(handle().db, principal(child.id), body({ maxConcurrentCalls: 3 }), by),
    ).rejects.toMatchObject({
      code: "invalid_request_body",
      errors: [{ param: "maxConcurrentCalls", message: "must not exceed the provider's limit (2)" }],
    });
    const operatorAgain = await set(child.id, false, { maxConcurrentCalls: 5 });
    expect([operatorAgain.operator.maxConcurrentCalls, operatorAgain.provider?.maxConcurrentCalls]).toEqual([5, 2]);
    // Its own account: the customer's layer, as for any account's own caller; a root account has no provider layer.
    const own = await putLimits(handle().db, resellerKey, body({ maxConcurrentCalls: 4 }), by);
    expect([own.operator.maxConcurrentCalls, own.customer.maxConcurrentCalls, own.provider]).toEqual([null, 4, null]);
    const events = await queryRows<{ layer: string }>(
      handle().db,
      sql`SELECT after->>'layer' AS layer FROM audit_events WHERE target_id = ${child.id} AND action = 'limits.updated'
          ORDER BY id`,
    );
    expect(events.map((e) => e.layer)).toEqual(["operator", "provider", "operator"]);
  });

  it("keeps a layer per reseller above the account: a sub-reseller neither replaces nor loosens its reseller's", async () => {
    // R1 > R2 > C: both resellers provision C, each writes its own layer on it.
    const r1 = await group();
    const deck = parseRateCsv("prefix,rate,increment\n44,0.90,1/1\n1,0.09,1/1\n33,0.20,1/1\n");
    const child = async (name: string, parentId: string) => {
      const g = await createBillingGroup(handle().db, { name, parentId, openingBalanceMicros: 100_000_000n });
      await importSellRates(handle().db, g.id, deck);
      return g.id;
    };
    const r2 = await child("R2", r1.id);
    const c = await child("C", r2);
    const as = (own: string, reach: string[]): Principal => ({
      ...principal(own),
      keyId: `key_${own}`,
      reachGroupIds: reach,
    });
    const [byR1, byR2] = [as(r1.id, [r1.id, r2, c]), as(r2, [r2, c])];
    const put = (p: Principal, limits: Record<string, unknown>) =>
      putLimits(handle().db, p, limitsBodySchema.parse({ billingGroupId: c, ...limits }), by);

    await put(byR1, { maxConcurrentCalls: 2, blockedPrefixes: ["1"] });
    // R2 may not lift R1's number; below it, its own layer sits beside R1's, which stays.
    await expect(put(byR2, { maxConcurrentCalls: 3 })).rejects.toMatchObject({
      code: "invalid_request_body",
      errors: [{ param: "maxConcurrentCalls", message: "must not exceed the provider's limit (2)" }],
    });
    const written = await put(byR2, { maxConcurrentCalls: 1, blockedPrefixes: ["33"] });
    expect(written.provider).toMatchObject({ maxConcurrentCalls: 1, blockedPrefixes: ["33"] });
    expect(written.providers.map((p) => [p.depth, p.maxConcurrentCalls, p.blockedPrefixes])).toEqual([
      [1, 1, ["33"]],
      [2, 2, ["1"]],
    ]);
    // Each reads its own layer as `provider`; the customer (and the platform) its parent's.
    expect((await readLimits(handle().db, byR1, c)).provider?.blockedPrefixes).toEqual(["1"]);
    expect((await readLimits(handle().db, principal(c), undefined)).provider?.blockedPrefixes).toEqual(["33"]);
    // Both hold at authorization: R1's block, R2's block, R2's lower cap.
    expect(await authorize(c, "1555")).toBe("destination_blocked");
    expect(await authorize(c, "3312")).toBe("destination_blocked");
    expect(await authorize(c)).toBe(60);
    expect(await authorize(c)).toBe("concurrent_calls_limit");
    // R1 rewriting its own layer leaves R2's: R2's cap of 1 still binds, R1's block is gone.
    await put(byR1, { maxConcurrentCalls: 4 });
    expect(await authorize(c)).toBe("concurrent_calls_limit");
    expect((await readLimits(handle().db, byR2, c)).providers.map((p) => p.maxConcurrentCalls)).toEqual([1, 4]);
    // The customer may tighten, never lift, any of them.
    await expect(put(principal(c), { billingGroupId: undefined, maxConcurrentCalls: 2 })).rejects.toMatchObject({
      errors: [{ param: "maxConcurrentCalls", message: "must not exceed the provider's limit (1)" }],
    });
    // Each write audited with its layer's depth above C (R1 two up, R2 its parent), never the resellers' ids.
    const audit = await queryRows<{ layer: string; depth: string | null; after: string }>(
      handle().db,
      sql`SELECT after->>'layer' AS layer, after->>'depth' AS depth, after::text AS after FROM audit_events
          WHERE target_id = ${c} AND action = 'limits.updated' ORDER BY id`,
    );
    expect(audit.map(({ layer, depth }) => [layer, depth])).toEqual([
      ["provider", "2"],
      ["provider", "1"],
      ["provider", "2"],
    ]);
    expect(audit.map((a) => a.after).join()).not.toContain(r1.id);
  });

  it("caps calls per second and the velocity rules over sliding windows", async () => {
    const g = await group();
    await set(g.id, false, { callsPerSecond: 3 });
    const results = await Promise.all(Array.from({ length: 8 }, () => authorize(g.id)));
    expect(results.filter((r) => r === "calls_per_second_limit").length).toBeGreaterThan(0);
    // However the 8 spread over time, no one-second window holds more than 3 grants.
    const [worst] = await queryRows<{ n: number | string }>(
      handle().db,
      sql`SELECT coalesce(max((SELECT count(*) FROM authorizations b WHERE b.billing_group_id = a.billing_group_id
            AND b.created_at > a.created_at - interval '1 second' AND b.created_at <= a.created_at)), 0) AS n
          FROM authorizations a WHERE a.billing_group_id = ${g.id}`,
    );
    expect(Number(worst.n)).toBeLessThanOrEqual(3);

    const v = await group();
    await set(v.id, false, {
      distinctDestinations: { max: 2, windowSeconds: 600 },
      callsPerPrefix: { max: 3, windowSeconds: 600 },
    });
    expect(await authorize(v.id, "4411")).toBe(60);
    expect(await authorize(v.id, "4412")).toBe(60);
    expect(await authorize(v.id, "4413")).toBe("velocity_limit"); // a third distinct destination
    expect(await authorize(v.id, "4411")).toBe(60); // one already called
    expect(await authorize(v.id, "4412")).toBe("velocity_limit"); // a fourth call to prefix 44
    const [refusal] = (await listRefusals(handle().db, principal(v.id), {}, { pageSize: 1 })).refusals;
    expect(refusal).toMatchObject({ limit: "callsPerPrefix", limitValue: "3/600s", currentValue: "3" });
    // The window slides: once the counted calls are older than 600 s (moved back here), new ones are admitted again.
    await handle().db.execute(
      sql`UPDATE velocity_destinations SET last_seen = last_seen - interval '602 seconds' WHERE billing_group_id = ${v.id}`,
    );
    expect(await authorize(v.id, "4413")).toBe("velocity_limit"); // the prefix's buckets still hold 3
    await handle().db.execute(
      sql`UPDATE velocity_prefix_buckets SET bucket = bucket - 602 WHERE billing_group_id = ${v.id}`,
    );
    expect(await authorize(v.id, "4413")).toBe(60);
    expect(await authorize(v.id, "4414")).toBe(60);
    expect(await authorize(v.id, "4415")).toBe("velocity_limit");
  });

  it("shortens the grant to the daily cap, counting open reservations and settled calls, then refuses", async () => {
    const g = await group();
    // 1.00 a day at 0.60/min: 100 s of calls.
    await set(g.id, false, { dailySpend: "1.00" });
    expect(await authorize(g.id)).toBe(60); // reserves 0.61 (61 s)
    expect(await authorize(g.id)).toBe(38); // 0.39 left: 39 s, a call cut at 38 s bills 39
    expect(await authorize(g.id)).toBe("daily_spend_limit");
    const limits = await readLimits(handle().db, principal(null), g.id);
    expect(limits.usage.openReservations).toBe(1);
    // A CDR with no authorization (the switch decided) still counts: 0.30 settled today.
    await handle().db.execute(
      sql`UPDATE authorizations SET expires_at = now() - interval '1 second' WHERE billing_group_id = ${g.id}`,
    );
    const start = new Date(Date.now() - 60_000);
    await ingestCdrs(
      handle().db,
      [
        nativeCdrSchema.parse({
          uuid: uuid(),
          billingGroupId: g.id,
          direction: "outbound",
          from: "1",
          to: "4479",
          startTime: start.toISOString(),
          answerTime: start.toISOString(),
          endTime: new Date(start.getTime() + 30_000).toISOString(),
        }),
      ],
      { restrictToBillingGroupId: g.id },
    );
    expect((await readLimits(handle().db, principal(g.id), undefined)).usage.settledToday).toBe(0.3);
    expect(await authorize(g.id)).toBe(60); // 0.70 left
    expect(await authorize(g.id)).toBe(8); // 0.09 left: 9 s
    const [refusal] = (await listRefusals(handle().db, principal(null), { account: g.id }, { pageSize: 5 })).refusals;
    expect(refusal).toMatchObject({ code: "daily_spend_limit", limitValue: "1", currentValue: "1" });
  });
  it("tells a crossing once (limit.hit, fraud.rule_hit, audit), however many calls it refuses, until one is admitted", async () => {
    const g = await group();
    await set(g.id, false, { maxConcurrentCalls: 1, blockedPrefixes: ["4490"] });
    const told = async () => {
      const rows = await queryRows<{ type: string; n: string | number }>(
        handle().db,
        sql`SELECT type, count(*) AS n FROM webhook_events WHERE billing_group_id = ${g.id} GROUP BY type`,
      );
      const [audit] = await queryRows<{ n: string | number }>(
        handle().db,
        sql`SELECT count(*) AS n FROM audit_events WHERE billing_group_id = ${g.id} AND action = 'limit.hit'`,
      );
      return { ...Object.fromEntries(rows.map((r) => [r.type, Number(r.n)])), audit: Number(audit.n) };
    };
    expect(await authorize(g.id)).toBe(60);
    for (let i = 0; i < 50; i++) expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    expect(await told()).toEqual({ "limit.hit": 1, audit: 1 });
    // Another limit's crossing is its own, and a destination rule's is a fraud rule's too.
    for (let i = 0; i < 3; i++) expect(await authorize(g.id, "449012")).toBe("destination_blocked");
    expect(await told()).toEqual({ "limit.hit": 2, "fraud.rule_hit": 1, audit: 2 });
    const [event] = await queryRows<{ body: string }>(
      handle().db,
      sql`SELECT body FROM webhook_events WHERE billing_group_id = ${g.id} AND type = 'fraud.rule_hit'`,
    );
    expect(JSON.parse(event.body).data).toMatchObject({ code: "destination_blocked", limit: "blockedPrefixes" });

    // An admitted authorization re-arms every limit: the next crossing is told again.
    await set(g.id, false, { maxConcurrentCalls: 2, blockedPrefixes: ["4490"] });
    expect(await authorize(g.id)).toBe(60);
    for (let i = 0; i < 5; i++) expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    expect(await authorize(g.id, "449012")).toBe("destination_blocked");
    expect(await told()).toEqual({ "limit.hit": 4, "fraud.rule_hit": 2, audit: 4 });
  });
  it("disables the account when a fraud rule fires, as the operator chose; the enable path reverses it", async () => {
    const g = await group();
    // The option is the operator's: a customer's layer cannot carry it.
    await expect(set(g.id, true, { disableOnFraud: true })).rejects.toMatchObject({
      errors: [{ param: "disableOnFraud" }],
    });
    await set(g.id, false, { maxConcurrentCalls: 1, blockedPrefixes: ["4490"], disableOnFraud: true });
    const disabled = async () => {
      const [row] = await queryRows<{ d: boolean; n: string | number }>(
        handle().db,
        sql`SELECT disabled_by_operator AS d, (SELECT count(*) FROM audit_events WHERE billing_group_id = ${g.id}
              AND action = 'account.disabled') AS n FROM billing_groups WHERE id = ${g.id}`,
      );
      return { disabled: row.d, audited: Number(row.n) };
    };
    // A limit that is not a fraud rule refuses without disabling.
    expect(await authorize(g.id)).toBe(60);
    expect(await authorize(g.id)).toBe("concurrent_calls_limit");
    expect(await disabled()).toEqual({ disabled: false, audited: 0 });
    expect(await authorize(g.id, "449012")).toBe("destination_blocked");
    expect(await disabled()).toEqual({ disabled: true, audited: 1 });
    expect(await authorize(g.id, "1555")).toBe("insufficient_balance");
    await updateAccount(handle().db, g.id, { disabled: false }, by);
    expect(await disabled()).toEqual({ disabled: false, audited: 1 });
    await set(g.id, false, { blockedPrefixes: ["4490"], disableOnFraud: true });
    expect(await authorize(g.id, "1555")).toBe(60);
  });

  it("decides under every rule in one read and one write under the lock, its refusals in one write more", async () => {
    const g = await group();
    await set(g.id, false, {
      maxConcurrentCalls: 100,
      callsPerSecond: 100,
      dailySpend: "50.00",
      monthlySpend: "80.00",
      blockedPrefixes: ["4490"],
      allowedPrefixes: ["44"],
      distinctDestinations: { max: 100, windowSeconds: 60 },
      callsPerPrefix: { max: 100, windowSeconds: 60 },
    });
    expect(await authorize(g.id, "4477")).toBe(60); // the rate card loaded and cached (it is read without a query then)
    const rec = await recordingDb(handle(), engine);
    const sent = async (destination: string) => {
      const before = rec.log.length;
      const answer = await outcome(
        authorizeCall(rec.db, principal(g.id), { uuid: uuid(), destination, maxDurationSeconds: 60 }),
      );
      // The first word of each statement; PGlite's driver logs no BEGIN/COMMIT, so neither counts.
      const words = rec.log.slice(before).map((s) => s.query.trim().split(/\s+/)[0].toLowerCase());
      return { answer, statements: words.filter((w) => w !== "begin" && w !== "commit") };
    };
    expect(await sent("4479")).toEqual({ answer: 60, statements: ["select", "with"] });
    // A refusal's record and its crossing's mark are one statement; telling the crossing (events, audit) adds its own.
    expect((await sent("449012")).statements.slice(0, 2)).toEqual(["select", "with"]);
    expect(await sent("449012")).toEqual({ answer: "destination_blocked", statements: ["select", "with"] });
    // Admitted again: the re-arm rides in the admitting statement.
    expect(await sent("4478")).toEqual({ answer: 60, statements: ["select", "with"] });
  });

  it("counts a window's distinct destinations no further than the rule's max + 1", async () => {
    const g = await group();
    await set(g.id, false, { distinctDestinations: { max: 10, windowSeconds: 600 } });
    for (let i = 0; i < 10; i++) expect(await authorize(g.id, `44${10 + i}`)).toBe(60);
    // Lowered below what the window holds: the count stops at 4, it does not read all 10.
    await set(g.id, false, { distinctDestinations: { max: 3, windowSeconds: 600 } });
    expect(await authorize(g.id, "4499")).toBe("velocity_limit");
    expect(await authorize(g.id, "4410")).toBe(60); // already called within the window
    const [refusal] = (await listRefusals(handle().db, principal(g.id), {}, { pageSize: 1 })).refusals;
    expect(refusal).toMatchObject({ limit: "distinctDestinations", limitValue: "3/600s", currentValue: "4" });
  });
});
