import { sql } from "drizzle-orm";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { answeredCdr } from "@/lib/ingest/testing/answered-cdr";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";

// The history tests' data (lib/history/move-month.test.ts, lib/admin/history-commands.test.ts): November 2030 and a
// December call, invoiced through February 2031; "now" is in March 2031 (Date faked by the tests).
export const NOW = Date.parse("2031-03-15T12:00:00Z");
export const NOVEMBER = new Date("2030-11-01T00:00:00Z");
export const ISSUER = { name: "Operator", address: "" };
export const MOVE_AFTER = 3;

/** Two groups, one in UTC, one in New York (its October ends at 04:00Z on 1 November: that UTC day is cut and stays). */
export async function seed(db: Db): Promise<{ cutDayUuid: string; groupIds: string[] }> {
  let serial = 0;
  const groups: string[] = [];
  for (const [name, zone] of [
    ["UTC", "UTC"],
    ["NY", "America/New_York"],
  ] as const) {
    const group = await createBillingGroup(db, { name, currency: "USD" });
    await setBillingGroupInvoicing(db, group.id, { timeZone: zone });
    await db.execute(sql`UPDATE billing_groups SET created_at = '2030-10-05T12:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(db, group.id, parseRateCsv("prefix,rate,increment,description\n1,1,60/60,USA\n"), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    groups.push(group.id);
  }
  const call = (g: number, at: string, minutes: number) =>
    answeredCdr({
      uuid: `move-${serial++}`,
      billingGroupId: groups[g],
      startMs: Date.parse(at),
      seconds: minutes * 60,
      to: "12125550100",
    });
  await ingestCdrs(db, [
    call(0, "2030-11-03T10:00:00Z", 2),
    call(0, "2030-11-03T11:00:00.250Z", 3),
    call(0, "2030-11-30T23:59:59.500Z", 1), // the last millisecond second of the month
    call(1, "2030-11-01T02:00:00Z", 4), // move-3: New York's October, on the cut UTC day: stays
    call(1, "2030-11-15T12:00:00Z", 5),
    call(1, "2030-11-30T12:00:00Z", 6),
    call(0, "2030-12-05T12:00:00Z", 7), // December: not old enough
  ]);
  // A hangup cause on two calls, for the listing's hangupCause filter.
  await db.execute(sql`UPDATE calls SET hangup_cause = 'NORMAL_CLEARING' WHERE uuid IN ('move-1', 'move-4')`);
  await runInvoices(db, { now: new Date(NOW), issuer: ISSUER });
  return { cutDayUuid: "move-3", groupIds: groups };
}

/**
 * A reseller R > sub-reseller S > customer C (lib/history/history-tier-charges.test.ts, lib/usage/tier-usage-rollups
 * .test.ts), each with its own deck; calls of each in November 2030 and one in December, invoiced as seed's.
 */
export async function seedTiers(db: Db): Promise<{ r: string; s: string; c: string }> {
  const ids: string[] = [];
  for (const [name, rate] of [
    ["Reseller", "0.4"],
    ["Sub", "0.7"],
    ["Customer", "1.25"],
  ] as const) {
    const group = await createBillingGroup(db, {
      name,
      ...(ids.length === 0 ? { currency: "USD" } : { parentId: ids.at(-1) }),
    });
    await setBillingGroupInvoicing(db, group.id, { timeZone: "UTC" });
    await db.execute(sql`UPDATE billing_groups SET created_at = '2030-10-05T12:00:00Z' WHERE id = ${group.id}`);
    await importSellRates(db, group.id, parseRateCsv(`prefix,rate,increment\n1,${rate},1/1\n`), undefined, {
      effectiveFrom: new Date("2025-01-01T00:00:00Z"),
    });
    ids.push(group.id);
  }
  const [r, s, c] = ids;
  const at: [string, string, number][] = [
    [c, "2030-11-03T10:07:00Z", 127],
    [c, "2030-11-03T10:52:30.250Z", 61],
    [s, "2030-11-10T08:00:00Z", 95],
    [r, "2030-11-12T09:00:00Z", 33],
    [c, "2030-11-30T23:59:59.500Z", 7],
    [c, "2030-12-05T12:00:00Z", 44],
  ];
  await ingestCdrs(
    db,
    at.map(([g, start, seconds], i) =>
      answeredCdr({ uuid: `tier-${i}`, billingGroupId: g, startMs: Date.parse(start), seconds, to: "12125550100" }),
    ),
  );
  await runInvoices(db, { now: new Date(NOW), issuer: ISSUER });
  return { r, s, c };
}

/**
 * What a move, an erasure or retention must leave as it was: rollups (the tiers' too), ledger, invoices, recheck marks,
 * uuid claims (and with `hotCalls`, the hot calls' uuids), each row as JSON text.
 */
export const billedRows = (db: Db, options: { hotCalls?: boolean } = {}) =>
  queryRows<{ t: string; row: string }>(
    db,
    sql`SELECT 'hourly' AS t, row_to_json(u)::text AS row FROM usage_hourly u
        UNION ALL SELECT 'quarter', row_to_json(u)::text FROM usage_quarter u
        UNION ALL SELECT 'daily', row_to_json(u)::text FROM usage_daily u
        UNION ALL SELECT 'tier hourly', row_to_json(u)::text FROM tier_usage_hourly u
        UNION ALL SELECT 'tier quarter', row_to_json(u)::text FROM tier_usage_quarter u
        UNION ALL SELECT 'tier daily', row_to_json(u)::text FROM tier_usage_daily u
        UNION ALL SELECT 'tier by account', row_to_json(u)::text FROM tier_account_usage_hourly u
        UNION ALL SELECT 'tier by account and day', row_to_json(u)::text FROM tier_account_usage_daily u
        UNION ALL SELECT 'tier by account and week', row_to_json(u)::text FROM tier_account_usage_weekly u
        UNION ALL SELECT 'tier by account and month', row_to_json(u)::text FROM tier_account_usage_monthly u
        UNION ALL SELECT 'ledger', row_to_json(l)::text FROM ledger_entries l
        UNION ALL SELECT 'invoice', row_to_json(i)::text FROM invoices i
        UNION ALL SELECT 'mark', row_to_json(m)::text FROM invoice_recheck_marks m
        UNION ALL SELECT 'uuid', row_to_json(c)::text FROM call_uuids c
        ${options.hotCalls ? sql`UNION ALL SELECT 'call', c.uuid FROM calls c` : sql``}
        ORDER BY 1, 2`,
  );
