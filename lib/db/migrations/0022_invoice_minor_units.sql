-- Documents are payable amounts (docs/contract.md §10): every line, subtotal, tax and total is a whole number of the
-- currency's minor units. A usage line keeps the exact sum of its calls' prices (exact_micros; null on the lines of
-- documents issued before this migration, whose amount is that sum) so a note compares exact with exact; a document
-- keeps the sub-minor-unit remainder it carries to the group's next document (remainder_micros), where a rounding
-- line takes it in. Adding columns changes no issued row (the immutability trigger is on UPDATE and DELETE).
ALTER TABLE "invoices" ADD COLUMN "remainder_micros" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "exact_micros" bigint;
