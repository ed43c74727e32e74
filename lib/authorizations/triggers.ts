import type { TriggerDeclaration } from "@/lib/db/triggers";

// Settlement: the final CDR of an authorized call (same billing group and uuid) settles its reservation in the
// ingest's own transaction. A statement-level trigger on calls after INSERT sets settled_at and call_id on the open
// authorizations the inserted calls name; ingest debits the call as always, and the settled reservation stops
// counting against the balance, which returns its unused part. It returns at once while no reservation is open.
// Function in migration 0007, re-created in 0034 to delete the settled authorizations' tier holds too; trigger
// re-created on the partitioned calls table in 0008 (lib/db/triggers.test.ts).

export const AUTHORIZATION_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "calls_settle_authorizations",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_settle_authorizations AFTER INSERT ON public.calls REFERENCING NEW TABLE AS new_calls FOR EACH STATEMENT EXECUTE FUNCTION authorizations_settle_on_call_insert()",
    migration: "0008_partition_calls.sql",
    functions: [{ name: "authorizations_settle_on_call_insert", migration: "0034_tier_reserve.sql" }],
  },
];
