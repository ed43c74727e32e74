import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { addWebhookEndpoint } from "@/lib/alerts/webhooks";
import { CLI_ACTOR } from "@/lib/audit/actor";
import type { Principal } from "@/lib/auth/principal";
import { effectiveScopes } from "@/lib/auth/scopes";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { storedCallValues } from "@/lib/testing/stored-call-values";
import { evaluateQuality } from "./evaluate-quality";
import { readQualityThresholds, replaceQualityThresholds } from "./quality-thresholds";
import { readQualityWindows } from "./read-windows";

const BY = { actor: CLI_ACTOR, address: null };
const NOW = new Date("2026-03-10T12:00:00Z");
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

function principal(billingGroupId: string | null): Principal {
  return {
    keyId: `key_${billingGroupId ?? "platform"}`,
    scopes: effectiveScopes(["alerts:write", "calls:read"]),
    billingGroupId,
    rateCardVersion: null,
    via: "api_key",
  };
}

interface CallSpec {
  to: string;
  prefix: string | null;
  answeredSeconds?: number;
  pddMs?: number;
  minutesAgo?: number;
  direction?: "inbound" | "outbound";
}

async function store(db: Db, billingGroupId: string, specs: CallSpec[]) {
  await db.insert(calls).values(
    specs.map((s) => {
      const start = minutesAgo(s.minutesAgo ?? 2);
      const answered = s.answeredSeconds !== undefined;
      return {
        ...storedCallValues(),
        uuid: randomUUID(),
        billingGroupId,
        direction: s.direction ?? "outbound",
        toNumber: s.to,
        matchedPrefix: s.prefix,
        startTime: start,
        answerTime: answered ? new Date(start.getTime() + 1000) : null,
        endTime: new Date(start.getTime() + 1000 + (s.answeredSeconds ?? 0) * 1000),
        duration: 1 + (s.answeredSeconds ?? 0),
        // Rounded up to whole minutes, as a 60/60 rate bills: ACD is the time answered, not the billed time.
        billDuration: Math.ceil((s.answeredSeconds ?? 0) / 60) * 60,
        pddMs: s.pddMs ?? null,
        supplierId: null,
        buyRateMicros: null,
        buyBillDuration: null,
        buyCostMicros: null,
      };
    }),
  );
}

const times = (n: number, spec: CallSpec) => Array.from({ length: n }, () => spec);

describeOnEngines("quality windows and alerts", (handle) => {
  it("reads ASR, ACD and PDD per account and per matched prefix over the window, outbound calls only", async () => {
    const db = handle().db;
    const a = await createBillingGroup(db, { name: "Windows", currency: "USD" });
    const other = await createBillingGroup(db, { name: "Other", currency: "USD" });
    await store(db, a.id, [
      { to: "442071234567", prefix: "4420", answeredSeconds: 60, pddMs: 1000 },
      { to: "442071234568", prefix: "4420", answeredSeconds: 31, pddMs: 2001 },
      { to: "442071234569", prefix: "4420" },
      { to: "4477001", prefix: "447", pddMs: 500 },
      { to: "999", prefix: null },
      // Outside the window, inbound, and another account's: none of them counts.
      { to: "442070000000", prefix: "4420", minutesAgo: 16 },
      { to: "442070000001", prefix: "4420", direction: "inbound" },
    ]);
    await store(db, other.id, [{ to: "4420", prefix: "4420" }]);
    const query = { window: "15m", groupBy: "prefix" as const, account: a.id };
    const report = await readQualityWindows(db, principal(null), query, NOW);
    expect(report).toMatchObject({ from: minutesAgo(15).toISOString(), to: NOW.toISOString(), groupBy: "prefix" });
    expect(report.windows).toEqual([
      { billingGroupId: a.id, prefix: "4420", attempts: 3, answered: 2, asr: 66.67, acd: 45.5, pdd: 1501, pddCalls: 2 },
      { billingGroupId: a.id, prefix: "447", attempts: 1, answered: 0, asr: 0, acd: null, pdd: 500, pddCalls: 1 },
      { billingGroupId: a.id, prefix: null, attempts: 1, answered: 0, asr: 0, acd: null, pdd: null, pddCalls: 0 },
    ]);
    const whole = await readQualityWindows(db, principal(a.id), { ...query, groupBy: "account", account: "" }, NOW);
    expect(whole.windows).toEqual([
      { billingGroupId: a.id, attempts: 5, answered: 2, asr: 40, acd: 45.5, pdd: 1167, pddCalls: 3 },
    ]);
    // A window with no calls has no rows; a bound caller naming another account reaches nothing.
    expect((await readQualityWindows(db, principal(a.id), { ...query, window: "1m" }, NOW)).windows).toEqual([]);
    await expect(readQualityWindows(db, principal(a.id), { ...query, account: other.id }, NOW)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === "not_found",
    );
  });

  it("fires quality.asr_low once per crossing into the outbox and the audit log, then quality.recovered, and re-arms", async () => {
    const db = handle().db;
    const g = await createBillingGroup(db, { name: "Alerted", currency: "USD" });
    const subscribed = await addWebhookEndpoint(db, {
      url: "https://93.184.215.14/q",
      billingGroupId: g.id,
      eventTypes: ["quality.asr_low", "quality.recovered"],
    });
    const elsewhere = await addWebhookEndpoint(db, {
      url: "https://93.184.215.14/b",
      billingGroupId: g.id,
      eventTypes: ["balance.low"],
    });
    const set = await replaceQualityThresholds(
      db,
      principal(g.id),
      { thresholds: [{ prefix: "44", windowMinutes: 10, minCalls: 4, asrMin: 50 }] },
      BY,
    );
    expect(set.thresholds).toEqual([
      expect.objectContaining({ prefix: "44", windowMinutes: 10, minCalls: 4, asrMin: 50, asrLow: false }),
    ]);
    // 1 of 4 calls to 44... answered (25 %), while calls to another prefix are all answered: only 44 is judged.
    await store(db, g.id, [
      ...times(3, { to: "4420123", prefix: "4420" }),
      { to: "4420124", prefix: "4420", answeredSeconds: 40 },
      ...times(6, { to: "3312345", prefix: "33", answeredSeconds: 40 }),
    ]);
    // Two processes judging the same window at once: one writes the crossing.
    const [first, second] = await Promise.all([evaluateQuality(db, NOW), evaluateQuality(db, NOW)]);
    expect([...first.fired, ...second.fired]).toEqual([
      { billingGroupId: g.id, prefix: "44", metric: "asr", past: true },
    ]);
    expect((await evaluateQuality(db, new Date(NOW.getTime() + 60_000))).fired).toEqual([]);
    const events = async () =>
      queryRows<{ type: string; body: string; endpoints: string }>(
        db,
        sql`SELECT e.type, e.body, coalesce(string_agg(d.endpoint_id, ','), '') AS endpoints
            FROM webhook_events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
            WHERE e.billing_group_id = ${g.id} GROUP BY e.seq, e.type, e.body ORDER BY e.seq`,
      );
    const [low] = await events();
    expect(low.type).toBe("quality.asr_low");
    expect(low.endpoints).toBe(subscribed.id);
    expect(low.endpoints).not.toContain(elsewhere.id);
    expect(JSON.parse(low.body)).toMatchObject({
      type: "quality.asr_low",
      data: { billingGroupId: g.id, prefix: "44", metric: "asr", value: 25, threshold: 50, attempts: 4, answered: 1 },
    });
    expect((await readQualityThresholds(db, principal(g.id), undefined)).thresholds[0]).toMatchObject({
      asrLow: true,
      evaluatedAt: new Date(NOW.getTime() + 60_000).toISOString(),
    });

    // Four answered calls later the window is at 62.5 %: recovered once, re-armed; then low again fires again.
    await store(db, g.id, times(4, { to: "4420125", prefix: "4420", answeredSeconds: 40 }));
    expect((await evaluateQuality(db, NOW)).fired).toEqual([
      { billingGroupId: g.id, prefix: "44", metric: "asr", past: false },
    ]);
    await store(db, g.id, times(8, { to: "4420126", prefix: "4420" }));
    expect((await evaluateQuality(db, NOW)).fired.map((f) => f.past)).toEqual([true]);
    expect((await events()).map((e) => e.type)).toEqual(["quality.asr_low", "quality.recovered", "quality.asr_low"]);
    const audit = await queryRows<{ action: string; actor_type: string }>(
      db,
      sql`SELECT action, actor_type FROM audit_events WHERE billing_group_id = ${g.id} ORDER BY id`,
    );
    expect(audit.map((e) => `${e.action} ${e.actor_type}`)).toEqual([
      "quality_threshold.changed cli",
      "quality.asr_low system",
      "quality.recovered system",
      "quality.asr_low system",
    ]);
    // The calls slide out of the window: nothing judged (too few calls), nothing fired, the state stays.
    expect((await evaluateQuality(db, new Date(NOW.getTime() + 11 * 60_000))).fired).toEqual([]);
    expect((await readQualityThresholds(db, principal(g.id), undefined)).thresholds[0].asrLow).toBe(true);
  });

  it("keeps a metric's state when its limit stays, and starts a changed one within its limit", async () => {
    const db = handle().db;
    const g = await createBillingGroup(db, { name: "Changed", currency: "USD" });
    const put = (asrMin: number, pddMax?: number) =>
      replaceQualityThresholds(
        db,
        principal(null),
        { billingGroupId: g.id, thresholds: [{ windowMinutes: 15, minCalls: 1, asrMin, pddMax }] },
        BY,
      );
    await put(50, 1000);
    await store(db, g.id, [{ to: "1", prefix: "1", pddMs: 5000 }]);
    expect((await evaluateQuality(db, NOW)).fired.map((f) => f.metric).sort()).toEqual(["asr", "pdd"]);
    const kept = await put(50, 2000);
    expect(kept.thresholds[0]).toMatchObject({ asrLow: true, pddHigh: false, prefix: null });
    expect((await evaluateQuality(db, NOW)).fired.map((f) => `${f.metric} ${f.past}`)).toEqual(["pdd true"]);
    await expect(readQualityThresholds(db, principal(null), undefined)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === "invalid_parameter",
    );
    expect((await put(40)).thresholds[0]).toMatchObject({ asrLow: false, pddMax: null, pddHigh: false });
  });
});
