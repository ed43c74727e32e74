import type { TriggerDeclaration } from "@/lib/db/triggers";

// Usage rollups (usage_hourly, usage_quarter, usage_daily) are written only by these statement-level triggers on
// calls, in the transaction of the INSERT (ingest), UPDATE (re-rating) or DELETE that changes the calls: one upsert
// of the grouped difference per statement, in key order (no deadlock between two transactions), so the rollups are
// always exact and no writer of calls knows about them. A DELETE of archiveCalls (lib/calls/archive-calls.ts, in a
// transaction with callbook.archiving on) leaves them as they are: archived calls stay counted. The SQL is in the
// migrations named below (functions in 0005, the delete's in 0023; the triggers re-created on the partitioned calls
// table in 0008); lib/db/triggers.test.ts checks them.

const fn = (name: string) => ({ name, migration: "0005_usage_rollups.sql" });
const TIER = "0035_tier_usage_rollups.sql";
// Where the tier rollups' functions are now defined: 0039 added tier_account_usage_hourly and _daily beside them, and
// 0040 re-created tier_usage_apply and the truncate's for tier_account_usage_weekly and _monthly.
const TIER_FUNCTIONS = "0039_tier_account_usage.sql";
const TIER_APPLY = "0040_tier_account_usage_weeks_months.sql";

export const USAGE_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "calls_usage_rollups_insert",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_usage_rollups_insert AFTER INSERT ON public.calls REFERENCING NEW TABLE AS new_calls FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_insert()",
    migration: "0008_partition_calls.sql",
    functions: [fn("usage_rollups_on_insert")],
  },
  {
    name: "calls_usage_rollups_update",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_usage_rollups_update AFTER UPDATE ON public.calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_update()",
    migration: "0008_partition_calls.sql",
    functions: [fn("usage_rollups_on_update")],
  },
  {
    name: "calls_usage_rollups_delete",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_usage_rollups_delete AFTER DELETE ON public.calls REFERENCING OLD TABLE AS old_calls FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_delete()",
    migration: "0008_partition_calls.sql",
    functions: [{ name: "usage_rollups_on_delete", migration: "0023_archive_calls.sql" }],
  },
  {
    name: "calls_usage_rollups_truncate",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_usage_rollups_truncate AFTER TRUNCATE ON public.calls FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_truncate()",
    migration: "0008_partition_calls.sql",
    functions: [fn("usage_rollups_on_truncate")],
  },
  // The tier rollups (tier_usage_hourly/quarter/daily, migration 0035; tier_account_usage_hourly and _daily, 0039;
  // tier_account_usage_weekly and _monthly, 0040): a reseller's subtree by tier (and by account), from its call_tier_charges rows
  // and their calls; a re-rated call moves them too. Skipped while archiving, as above.
  ...[
    ["call_tier_charges_usage_insert", "INSERT", "REFERENCING NEW TABLE AS new_charges ", "tier_usage_on_insert"],
    [
      "call_tier_charges_usage_update",
      "UPDATE",
      "REFERENCING OLD TABLE AS old_charges NEW TABLE AS new_charges ",
      "tier_usage_on_update",
    ],
    ["call_tier_charges_usage_delete", "DELETE", "REFERENCING OLD TABLE AS old_charges ", "tier_usage_on_delete"],
    ["call_tier_charges_usage_truncate", "TRUNCATE", "", "tier_usage_on_truncate"],
  ].map(([name, event, transition, fnName]) => ({
    name,
    table: "call_tier_charges",
    definition: `CREATE TRIGGER ${name} AFTER ${event} ON public.call_tier_charges ${transition}FOR EACH STATEMENT EXECUTE FUNCTION ${fnName}()`,
    migration: TIER,
    functions: [
      { name: fnName, migration: event === "TRUNCATE" ? TIER_APPLY : TIER_FUNCTIONS },
      ...(event === "TRUNCATE" ? [] : [{ name: "tier_usage_apply", migration: TIER_APPLY }]),
    ],
  })),
  {
    name: "calls_tier_usage_update",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_tier_usage_update AFTER UPDATE ON public.calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_calls_update()",
    migration: TIER,
    functions: [
      { name: "tier_usage_on_calls_update", migration: TIER_FUNCTIONS },
      { name: "tier_usage_apply", migration: TIER_APPLY },
    ],
  },
];
