-- The history tier (issue 33, docs/contract.md "History tier"): one row per UTC month moved, or being moved, from calls
-- to ClickHouse (lib/history/move-month.ts). The state says which step is done: copying (the month's calls are being
-- written to ClickHouse), copied (all of them written), verified (both stores agree per group and UTC day; the totals
-- below are what was verified), removed (the calls left PostgreSQL through the archive path; final). A process moving
-- a month holds an advisory lock on it; the row is what lets the next one resume after a crash.
CREATE TABLE "history_moves" (
	"month" timestamp (3) with time zone PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"copy_attempts" integer DEFAULT 0 NOT NULL,
	"copied_calls" bigint,
	"calls" bigint,
	"price_micros" bigint,
	"buy_cost_micros" bigint,
	"billed_seconds" bigint,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"copied_at" timestamp (3) with time zone,
	"verified_at" timestamp (3) with time zone,
	"removed_at" timestamp (3) with time zone,
	CONSTRAINT "history_moves_state" CHECK ("state" IN ('copying', 'copied', 'verified', 'removed')),
	CONSTRAINT "history_moves_month_start" CHECK ("month" = date_trunc('month', "month", 'UTC'))
);
