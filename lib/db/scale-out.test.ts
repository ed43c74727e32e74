import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { authorizeCall } from "@/lib/authorizations/authorize";
import { createBillingGroup } from "@/lib/billing/groups";
import { exportCallsCsv } from "@/lib/calls/export-csv";
import { getCall } from "@/lib/calls/get-call";
import { listCalls, listCallsJson } from "@/lib/calls/list-calls";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rerateCalls } from "@/lib/rating/rerate";
import { summarizeUsage } from "@/lib/usage/summarize-usage";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { recordingDb } from "@/lib/testing/recording-db";
import { testPrincipal } from "@/lib/testing/test-principal";

// Citus readiness (docs/scale-out.md): calls, call_uuids, ledger_entries and the usage rollups distribute by
// billing_group_id. That needs (1) every unique index of those tables to hold billing_group_id (and, on the partitioned
// calls, the partition key start_time), and (2) every query on calls to name the group, so it routes to one shard;
// the reads that span every group on purpose (platform keys, operator-wide rerate) are listed below as fan-outs.

/** Tables distributed by billing_group_id; their unique keys must hold it. */
const DISTRIBUTED = [
  "call_uuids",
  "ledger_entries",
  "usage_hourly",
  "usage_quarter",
  "usage_daily",
  "authorizations",
  "balance_alert_thresholds",
];

/**
 * Domain calls whose statements on calls may span every group: intentional multi-shard fan-outs, each for a reason.
 * Anything else touching calls must carry billing_group_id.
 */
const FAN_OUT_ALLOWED: Record<string, string> = {
  "list, platform key":
    "a platform key lists every group's calls, newest first (GET /v1/calls without billingGroupId); its uuid search reads call_uuids by uuid (call_uuids_uuid_idx) on every shard, then each call found by its primary key (a colocated join)",
  "get-call, platform key": "a platform key may open any call by id; the id alone does not say its group",
  "usage, platform key":
    "a platform key's usage report spans every group (groupBy=account among others); with a uuid, as the listing's uuid search",
  "rerate, all groups": "the operator's `rerate` without --group re-rates every group's calls, in primary key order",
};

/** A statement that reads or writes calls (not call_uuids, not the rollups' `calls` column). */
const touchesCalls = (q: string) => /\b(from|join|into|update)\s+"?calls"?(?=[\s"(),]|$)/i.test(q);

/**
 * Names the group: an equality or IN on billing_group_id (also inside a row comparison with a list of values or a join
 * condition), or an INSERT whose column list holds it (each row is routed by its value). A row comparison IN a subquery
 * (the uuid search: `(billing_group_id, start_time, id) IN (SELECT ... FROM call_uuids ...)`) names no group by itself.
 */
const keyedByGroup = (q: string) =>
  /billing_group_id"?\s*(=|in\b)/i.test(q) ||
  /\([^()]*billing_group_id[^()]*\)\s*in\s*\((?!\s*select\b)/i.test(q) ||
  /insert\s+into\s+"?calls"?\s*\([^)]*billing_group_id/i.test(q);

describeOnEngines("scale-out readiness (Citus)", (handle, engine) => {
  it("every unique index of calls, its partitions and the other distributed tables holds billing_group_id (calls: and start_time)", async () => {
    const indexes = await queryRows<{ tbl: string; idx: string; cols: string[]; is_calls: boolean }>(
      handle().db,
      sql`SELECT c.relname AS tbl, i.relname AS idx, (c.oid IN (SELECT relid FROM pg_partition_tree('calls'))) AS is_calls,
            ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) AS k(n) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n) AS cols
          FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indisunique
            AND (c.oid IN (SELECT relid FROM pg_partition_tree('calls')) OR c.relname IN (SELECT json_array_elements_text(${JSON.stringify(DISTRIBUTED)}::json)))
            AND c.relnamespace = 'public'::regnamespace
          ORDER BY 1, 2`,
    );
    const names = indexes.map((i) => i.idx);
    // The parent's key, a partition's copy of it, the default partition's, and call_uuids' own: the check has material.
    expect(names).toEqual(
      expect.arrayContaining([
        "calls_pkey",
        "calls_default_pkey",
        "call_uuids_pkey",
        "ledger_entries_pkey",
        "ledger_call_debit_key",
      ]),
    );
    expect(indexes.filter((i) => i.is_calls).length).toBeGreaterThan(2);
    for (const index of indexes) {
      expect(index.cols, index.idx).toContain("billing_group_id");
      if (index.is_calls) expect(index.cols, index.idx).toContain("start_time");
    }
  });

  it("every statement on calls of the domain functions names the billing group, except the listed platform fan-outs", async () => {
    const rec = await recordingDb(handle(), engine);
    const g = await createBillingGroup(handle().db, {
      name: "Scale",
      currency: "USD",
      openingBalanceMicros: 10_000_000n,
    });
    const other = await createBillingGroup(handle().db, { name: "Other", currency: "USD", openingBalanceMicros: 0n });
    const bound = testPrincipal(g.id, ["calls:read", "calls:read_cost", "cdrs:write"]);
    const platform = testPrincipal(null, ["calls:read", "calls:read_cost", "cdrs:write"]);
    const cdrs = [0, 1, 2].map((i) =>
      nativeCdrSchema.parse({
        uuid: `scale-${i}-${Math.random().toString(36).slice(2)}`,
        direction: "outbound",
        from: "4930123",
        to: "4420712345",
        startTime: `2025-0${i + 4}-01T10:00:00Z`,
        answerTime: `2025-0${i + 4}-01T10:00:05Z`,
        endTime: `2025-0${i + 4}-01T10:01:05Z`,
        hangupCause: "NORMAL_CLEARING",
        billingGroupId: g.id,
      }),
    );

    const [first] = await rec.during("ingest", () => ingestCdrs(rec.db, cdrs, { restrictToBillingGroupId: g.id }));
    await rec.during("ingest replay", () => ingestCdrs(rec.db, cdrs, { restrictToBillingGroupId: g.id }));
    await importSellRates(handle().db, g.id, parseRateCsv("prefix,rate,increment\n44,0.06,1/1\n")); // first deck: from the epoch
    await rec.during("rerate, one group", () => rerateCalls(rec.db, { billingGroupId: g.id }));
    await rec.during("rerate --since, one group", () =>
      rerateCalls(rec.db, { billingGroupId: g.id, since: new Date("2025-01-01T00:00:00Z") }),
    );
    await rec.during("rerate, all groups", () => rerateCalls(rec.db, {}));
    const page = await rec.during("list, bound key", () => listCalls(rec.db, bound, {}, { pageSize: 1 }));
    await rec.during("list, bound key", () => listCalls(rec.db, bound, {}, { pageSize: 1, cursor: page.nextCursor }));
    await rec.during("list, bound key", () =>
      listCalls(
        rec.db,
        bound,
        {
          to: "207",
          toPrefix: "44",
          fromPrefix: "49",
          hangupCause: "normal_clearing",
          uuid: cdrs[0].uuid,
          id: String(first.call.id),
        },
        { pageSize: 10 },
      ),
    );
    // GET /v1/calls's own statement (JSON built in SQL); on PGlite it goes around Drizzle and so its logger
    // (queryTextColumn), so only PostgreSQL records it. Its WHERE is listCalls's (listingWhere).
    const jsonPage = await rec.during("list JSON, bound key", () => listCallsJson(rec.db, bound, {}, { pageSize: 1 }));
    await rec.during("list JSON, bound key", () =>
      listCallsJson(rec.db, bound, {}, { pageSize: 1, cursor: jsonPage.nextCursor }),
    );
    await rec.during("list JSON, bound key", () =>
      listCallsJson(rec.db, bound, { uuid: cdrs[0].uuid }, { pageSize: 10 }),
    );
    await rec.during("list, platform key", () => listCalls(rec.db, platform, {}, { pageSize: 10 }));
    await rec.during("list, platform key naming a group", () =>
      listCalls(rec.db, platform, { billingGroupId: g.id }, { pageSize: 10 }),
    );
    await rec.during("list, platform key", () => listCalls(rec.db, platform, { uuid: cdrs[0].uuid }, { pageSize: 10 }));
    await rec.during("list, platform key naming a group", () =>
      listCalls(rec.db, platform, { billingGroupId: g.id, uuid: cdrs[0].uuid }, { pageSize: 10 }),
    );
    await rec.during("get-call, bound key", () => getCall(rec.db, bound, String(first.call.id)));
    await rec.during("get-call, platform key", () => getCall(rec.db, platform, String(first.call.id)));
    for (const groupBy of ["day", "destination", "hangupCause"] as const) {
      await rec.during("usage, bound key", () =>
        summarizeUsage(
          rec.db,
          bound,
          { startTimeGte: new Date("2025-04-01T10:00:30Z"), startTimeLte: new Date("2025-06-01T10:30:00Z") },
          { groupBy },
        ),
      );
    }
    await rec.during("usage, bound key", () =>
      summarizeUsage(rec.db, bound, { fromPrefix: "4930", uuid: cdrs[1].uuid }, { groupBy: "day" }),
    );
    await rec.during("usage, platform key naming a group", () =>
      summarizeUsage(rec.db, platform, { account: g.id, to: "20" }, { groupBy: "account" }),
    );
    await rec.during("usage, platform key", () =>
      summarizeUsage(rec.db, platform, { to: "20" }, { groupBy: "account" }),
    );
    await rec.during("usage, platform key", () =>
      summarizeUsage(rec.db, platform, { uuid: cdrs[1].uuid }, { groupBy: "account" }),
    );
    await rec.during("usage, platform key naming a group", () =>
      summarizeUsage(rec.db, platform, { account: g.id, uuid: cdrs[1].uuid }, { groupBy: "day" }),
    );
    await rec.during("authorize", () =>
      authorizeCall(rec.db, bound, { uuid: cdrs[0].uuid, destination: "4420712345" }).catch(() => undefined),
    );
    await rec.during("authorize", () => authorizeCall(rec.db, bound, { uuid: "scale-new", destination: "4420712345" }));
    await rec.during("CSV export", async () => new Response(await exportCallsCsv(rec.db, bound, {}, 1)).text());
    await rec.during("ingest, other group", () =>
      ingestCdrs(rec.db, [nativeCdrSchema.parse({ ...cdrs[0], billingGroupId: other.id })], {
        restrictToBillingGroupId: other.id,
      }),
    );

    const onCalls = rec.log.filter((s) => touchesCalls(s.query));
    // Every phase that reads or writes calls was recorded (a renamed table or a silent logger would pass vacuously).
    const phases = new Set(onCalls.map((s) => s.phase));
    const keyedPhases = [
      "ingest",
      "ingest replay",
      "rerate, one group",
      "rerate --since, one group",
      "list, bound key",
      "get-call, bound key",
      "usage, bound key",
      "CSV export",
    ];
    if (engine === "postgres") keyedPhases.push("list JSON, bound key");
    for (const phase of keyedPhases) {
      expect(phases, phase).toContain(phase);
    }
    for (const phase of Object.keys(FAN_OUT_ALLOWED)) expect(phases, phase).toContain(phase);
    const unkeyed = onCalls.filter((s) => !keyedByGroup(s.query) && !(s.phase in FAN_OUT_ALLOWED));
    expect(unkeyed).toEqual([]);
    // The checker can tell: a platform listing's statement does not name a group, nor does its uuid search (the
    // row comparison with call_uuids), which is the allow-listed platform listing's fan-out.
    expect(onCalls.some((s) => s.phase === "list, platform key" && !keyedByGroup(s.query))).toBe(true);
    const platformUuid = onCalls.filter((s) => s.phase === "list, platform key" && /call_uuids/.test(s.query));
    expect(platformUuid).toHaveLength(1);
    expect(keyedByGroup(platformUuid[0].query)).toBe(false);
  });
});
