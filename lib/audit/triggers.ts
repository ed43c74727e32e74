import type { TriggerDeclaration } from "@/lib/db/triggers";

// The audit log is append-only (docs/contract.md "Audit events"): one statement-level trigger refuses UPDATE, DELETE
// and TRUNCATE of audit_events, whoever sends them (the product has no such path; this also stops psql and a
// mistaken migration). SQL in migration 0011 (lib/db/triggers.test.ts checks it).

export const AUDIT_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "audit_events_append_only",
    table: "audit_events",
    definition:
      "CREATE TRIGGER audit_events_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON public.audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change()",
    migration: "0011_audit_events.sql",
    functions: [{ name: "audit_events_refuse_change", migration: "0011_audit_events.sql" }],
  },
];
