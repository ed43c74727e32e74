import type { TriggerDeclaration } from "@/lib/db/triggers";

// Usage rollups (usage_hourly, usage_quarter, usage_daily) are written only by these statement-level triggers on
// calls, in the transaction of the INSERT (ingest), UPDATE (re-rating) or DELETE that changes the calls: one upsert
// of the grouped difference per statement, in key order (no deadlock between two transactions), so the rollups are
// always exact and no writer of calls knows about them. A DELETE of archiveCalls (lib/calls/archive-calls.ts, in a
// transaction with callbook.archiving on) leaves them as they are: archived calls stay counted. The SQL is in the
// migrations named below (functions in 0005, the delete's in 0023; the triggers re-created on the partitioned calls
// table in 0008); lib/db/triggers.test.ts checks them.

const fn = (name: string) => ({ name, migration: "0005_usage_rollups.sql" });

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
];
