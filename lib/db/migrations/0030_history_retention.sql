-- History retention (issue 33 item 4, docs/contract.md "History tier"): a moved month's ClickHouse partition is dropped
-- once it is older than HISTORY_RETENTION_MONTHS (lib/history/retain-months.ts). Its row stays, in state dropped (final),
-- so reads stop asking ClickHouse for it and a late CDR of it is still refused; dropped_at says when.
ALTER TABLE "history_moves" ADD COLUMN "dropped_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "history_moves" DROP CONSTRAINT "history_moves_state";
--> statement-breakpoint
ALTER TABLE "history_moves" ADD CONSTRAINT "history_moves_state" CHECK ("state" IN ('copying', 'copied', 'verified', 'removed', 'dropped'));
