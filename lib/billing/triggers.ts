import type { TriggerDeclaration } from "@/lib/db/triggers";

// The ledger (docs/contract.md §1): the balance is its sum, and invoices state it (§10). TRUNCATE is refused, whoever
// sends it (a row trigger would not fire on it). SQL in migration 0021.

/** One function refuses TRUNCATE for the ledger and the issued documents (lib/invoices/triggers.ts). */
export const REFUSE_TRUNCATE = [{ name: "refuse_truncate", migration: "0021_invoice_marks_by_period.sql" }];

export const LEDGER_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "ledger_entries_refuse_truncate",
    table: "ledger_entries",
    definition:
      "CREATE TRIGGER ledger_entries_refuse_truncate BEFORE TRUNCATE ON public.ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()",
    migration: "0021_invoice_marks_by_period.sql",
    functions: REFUSE_TRUNCATE,
  },
];
