-- The end of each group's last invoiced period (docs/contract.md §10), written in the issuing transaction. The
-- re-check trigger on calls compares a call's start with it (one primary-key read per group of the statement), so a
-- call of an invoiced period is marked whatever the group's zone and whenever it arrives.
CREATE TABLE "invoiced_until" (
	"billing_group_id" text PRIMARY KEY NOT NULL REFERENCES "billing_groups"("id"),
	"period_end" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
INSERT INTO invoiced_until (billing_group_id, period_end)
SELECT billing_group_id, max(period_end) FROM invoices WHERE kind = 'invoice' GROUP BY billing_group_id;
--> statement-breakpoint
-- A call marks its (group, UTC day) when it started before the group's own bound: the later of the start of the
-- running month in the group's zone (a period that has closed, invoiced or not: a call committed while its invoice is
-- being issued is still rechecked by the next run) and the end of the group's last invoiced period (it can be later
-- after a change of zone, or when a run was given a later instant). The zone is read once per group of the statement,
-- never per call; calls of the running period (nearly every ingested call) write nothing. Replaces 0012's UTC window
-- (the current UTC month's start + 12 h), which missed the late calls of zones east of UTC.
CREATE OR REPLACE FUNCTION invoices_mark_changed_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invoice_recheck_marks (billing_group_id, day)
  SELECT DISTINCT c.billing_group_id, date_trunc('day', c.start_time, 'UTC')
  FROM changed_calls c
  JOIN (
    SELECT g.id, greatest(date_trunc('month', now(), g.time_zone), u.period_end) AS bound
    FROM billing_groups g LEFT JOIN invoiced_until u ON u.billing_group_id = g.id
    WHERE g.id IN (SELECT DISTINCT billing_group_id FROM changed_calls)
  ) b ON b.id = c.billing_group_id
  WHERE c.start_time < b.bound
  ORDER BY 1, 2;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Issued documents and the ledger are never emptied either (audit_events already refuses TRUNCATE, 0011): a row
-- trigger does not fire on TRUNCATE, so a statement-level one refuses it.
CREATE FUNCTION refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% of % refused: issued documents and the ledger are never emptied', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER invoices_refuse_truncate BEFORE TRUNCATE ON invoices FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
--> statement-breakpoint
CREATE TRIGGER invoice_lines_refuse_truncate BEFORE TRUNCATE ON invoice_lines FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_refuse_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
