import type { TriggerDeclaration } from "@/lib/db/triggers";
import { REFUSE_TRUNCATE } from "@/lib/billing/triggers";

// Invoices (docs/contract.md §10). Issued documents never change: a row trigger on invoices and invoice_lines refuses
// every UPDATE and DELETE (a correction is a new credit or debit note). Calls written in a month that may have closed
// (ingest of a late CDR, re-rating, a delete) append their (group, UTC day) to invoice_recheck_marks in the writing
// transaction, whether or not the invoice exists yet; the invoice run rechecks the invoices of those days and issues
// the notes (lib/invoices/run-invoices.ts). "May have closed" is the group's own: before the start of the running month
// in its zone or before the end of its last invoiced period (invoiced_until), never a UTC window. Calls of the running
// period write nothing; neither does the DELETE of archiveCalls (lib/calls/archive-calls.ts), which takes nothing
// back. TRUNCATE is refused too (a statement-level trigger). SQL in migrations 0012, 0021 and 0023.

const MIGRATION = "0012_invoices.sql";
const refuse = [{ name: "invoices_refuse_change", migration: MIGRATION }];
const mark = [{ name: "invoices_mark_changed_calls", migration: "0023_archive_calls.sql" }];

export const INVOICE_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "invoices_immutable",
    table: "invoices",
    definition:
      "CREATE TRIGGER invoices_immutable BEFORE DELETE OR UPDATE ON public.invoices FOR EACH ROW EXECUTE FUNCTION invoices_refuse_change()",
    migration: MIGRATION,
    functions: refuse,
  },
  {
    name: "invoice_lines_immutable",
    table: "invoice_lines",
    definition:
      "CREATE TRIGGER invoice_lines_immutable BEFORE DELETE OR UPDATE ON public.invoice_lines FOR EACH ROW EXECUTE FUNCTION invoices_refuse_change()",
    migration: MIGRATION,
    functions: refuse,
  },
  {
    name: "invoices_refuse_truncate",
    table: "invoices",
    definition:
      "CREATE TRIGGER invoices_refuse_truncate BEFORE TRUNCATE ON public.invoices FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()",
    migration: "0021_invoice_marks_by_period.sql",
    functions: REFUSE_TRUNCATE,
  },
  {
    name: "invoice_lines_refuse_truncate",
    table: "invoice_lines",
    definition:
      "CREATE TRIGGER invoice_lines_refuse_truncate BEFORE TRUNCATE ON public.invoice_lines FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()",
    migration: "0021_invoice_marks_by_period.sql",
    functions: REFUSE_TRUNCATE,
  },
  {
    name: "calls_invoice_marks_insert",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_invoice_marks_insert AFTER INSERT ON public.calls REFERENCING NEW TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls()",
    migration: MIGRATION,
    functions: mark,
  },
  {
    name: "calls_invoice_marks_update",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_invoice_marks_update AFTER UPDATE ON public.calls REFERENCING NEW TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls()",
    migration: MIGRATION,
    functions: mark,
  },
  {
    name: "calls_invoice_marks_delete",
    table: "calls",
    definition:
      "CREATE TRIGGER calls_invoice_marks_delete AFTER DELETE ON public.calls REFERENCING OLD TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls()",
    migration: MIGRATION,
    functions: mark,
  },
];
