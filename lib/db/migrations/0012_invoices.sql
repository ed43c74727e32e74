CREATE TABLE "document_counters" (
	"series" text PRIMARY KEY NOT NULL,
	"last_number" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"invoice_id" text NOT NULL,
	"line_no" integer NOT NULL,
	"kind" text NOT NULL,
	"direction" text,
	"prefix" text,
	"description" text NOT NULL,
	"calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"amount_micros" bigint NOT NULL,
	"occurred_at" timestamp (3) with time zone,
	CONSTRAINT "invoice_lines_invoice_id_line_no_pk" PRIMARY KEY("invoice_id","line_no")
);
--> statement-breakpoint
CREATE TABLE "invoice_recheck_marks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "invoice_recheck_marks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"billing_group_id" text NOT NULL,
	"day" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "invoices_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"number" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"invoice_id" text,
	"period_start" timestamp (3) with time zone NOT NULL,
	"period_end" timestamp (3) with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"billing_mode" text NOT NULL,
	"tax_rate_ppm" integer NOT NULL,
	"currency" char(3) NOT NULL,
	"customer_name" text NOT NULL,
	"issuer_name" text NOT NULL,
	"issuer_address" text NOT NULL,
	"subtotal_micros" bigint NOT NULL,
	"tax_micros" bigint NOT NULL,
	"total_micros" bigint NOT NULL,
	"opening_balance_micros" bigint,
	"topups_micros" bigint,
	"adjustments_micros" bigint,
	"debits_micros" bigint,
	"closing_balance_micros" bigint,
	"issued_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_note_refers" CHECK (("invoices"."kind" = 'invoice') = ("invoices"."invoice_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "billing_groups" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_groups" ADD COLUMN "billing_mode" text DEFAULT 'prepaid' NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_groups" ADD COLUMN "tax_rate_ppm" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_key" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_group_period_key" ON "invoices" USING btree ("billing_group_id","period_start") WHERE "invoices"."kind" = 'invoice';--> statement-breakpoint
CREATE INDEX "invoices_group_issued_idx" ON "invoices" USING btree ("billing_group_id","issued_at","seq");--> statement-breakpoint
CREATE INDEX "invoices_issued_idx" ON "invoices" USING btree ("issued_at","seq");--> statement-breakpoint
CREATE INDEX "invoices_invoice_idx" ON "invoices" USING btree ("invoice_id");--> statement-breakpoint
ALTER TABLE "billing_groups" ADD CONSTRAINT "billing_groups_billing_mode" CHECK ("billing_groups"."billing_mode" IN ('prepaid', 'postpaid'));--> statement-breakpoint
ALTER TABLE "billing_groups" ADD CONSTRAINT "billing_groups_tax_rate_ppm" CHECK ("billing_groups"."tax_rate_ppm" BETWEEN 0 AND 1000000);--> statement-breakpoint
-- Issued documents never change (docs/contract.md §10): a correction is a new credit or debit note.
CREATE FUNCTION invoices_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'issued documents never change: % of % refused (a correction is a credit or debit note)', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION invoices_refuse_change();
--> statement-breakpoint
CREATE TRIGGER invoice_lines_immutable BEFORE UPDATE OR DELETE ON invoice_lines FOR EACH ROW EXECUTE FUNCTION invoices_refuse_change();
--> statement-breakpoint
-- Calls written in a month that may have closed (before the current UTC month's start + 12 h: no zone's month runs
-- later, UTC-12 being the last) mark their (group, UTC day), whether or not its invoice exists yet, so a call written
-- while the run issues that invoice is still rechecked by the next run. Calls of the running month (nearly every
-- ingested call) write nothing.
CREATE FUNCTION invoices_mark_changed_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invoice_recheck_marks (billing_group_id, day)
  SELECT DISTINCT billing_group_id, date_trunc('day', start_time, 'UTC') FROM changed_calls
  WHERE start_time < date_trunc('month', now(), 'UTC') + interval '12 hours'
  ORDER BY 1, 2;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER calls_invoice_marks_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls();
--> statement-breakpoint
CREATE TRIGGER calls_invoice_marks_update AFTER UPDATE ON calls REFERENCING NEW TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls();
--> statement-breakpoint
CREATE TRIGGER calls_invoice_marks_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS changed_calls FOR EACH STATEMENT EXECUTE FUNCTION invoices_mark_changed_calls();
