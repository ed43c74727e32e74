import type { TriggerDeclaration } from "@/lib/db/triggers";

// Invoices (docs/contract.md §10). Issued documents never change: a row trigger on invoices and invoice_lines refuses
// every UPDATE and DELETE (a correction is a new credit or debit note). Calls written in a month that may have closed
// (ingest of a late CDR, re-rating, a delete) append their (group, UTC day) to invoice_recheck_marks in the writing
// transaction, whether or not the invoice exists yet; the invoice run rechecks the invoices of those days and issues
// the notes (lib/invoices/run-invoices.ts). Calls of the running month write nothing. SQL in migration 0012.

const MIGRATION = "0012_invoices.sql";
const refuse = [{ name: "invoices_refuse_change", migration: MIGRATION }];
const mark = [{ name: "invoices_mark_changed_calls", migration: MIGRATION }];

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
