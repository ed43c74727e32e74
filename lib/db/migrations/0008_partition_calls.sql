-- Issue 12: calls partitioned by month (RANGE on start_time, UTC months) with PostgreSQL's native partitioning, the same
-- SQL on PostgreSQL 15+ and PGlite (17). Every unique key holds billing_group_id and start_time, so the table also
-- distributes by billing group on Citus (docs/scale-out.md). The uuid's uniqueness per group, which a partitioned unique
-- index cannot hold without start_time, moves to call_uuids (not partitioned); ingest claims there first.
-- Steps: set the old table aside, create the partitioned one (a sequence default instead of identity, which behaves
-- differently on partitioned tables in 15 and 17; the sequence continues where the identity stopped), copy every call BEFORE
-- the triggers exist (the rollups already count these calls; settled authorizations stay settled), fill call_uuids,
-- build the indexes once, then re-create the triggers on the partitioned parent (statement-level, transition tables).
ALTER TABLE "calls" RENAME TO "calls_0007";--> statement-breakpoint
ALTER TABLE "calls_0007" RENAME CONSTRAINT "calls_pkey" TO "calls_0007_pkey";--> statement-breakpoint
ALTER SEQUENCE "calls_id_seq" RENAME TO "calls_0007_id_seq";--> statement-breakpoint
DROP INDEX "calls_group_uuid_key";--> statement-breakpoint
DROP INDEX "calls_group_start_id_idx";--> statement-breakpoint
DROP INDEX "calls_start_id_idx";--> statement-breakpoint
DROP INDEX "calls_group_hangup_start_id_idx";--> statement-breakpoint
DROP INDEX "calls_to_trgm_idx";--> statement-breakpoint
DROP INDEX "calls_unrated_idx";--> statement-breakpoint
CREATE SEQUENCE "public"."calls_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
SELECT setval('calls_id_seq', s.last_value, s.is_called) FROM "calls_0007_id_seq" s;--> statement-breakpoint
-- The columns in the order of the old table (0006 appended the deck and fee columns), so SELECT * copies them.
CREATE TABLE "calls" (
	"id" bigint DEFAULT nextval('calls_id_seq') NOT NULL,
	"uuid" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"direction" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"start_time" timestamp (3) with time zone NOT NULL,
	"answer_time" timestamp (3) with time zone,
	"end_time" timestamp (3) with time zone NOT NULL,
	"duration" integer NOT NULL,
	"bill_duration" integer NOT NULL,
	"pdd_ms" integer,
	"hangup_cause" text,
	"q850_cause" smallint,
	"read_codec" text,
	"write_codec" text,
	"recording_url" text,
	"accountcode" text,
	"network_addr" text,
	"currency" char(3) NOT NULL,
	"rated" boolean NOT NULL,
	"matched_prefix" text,
	"sell_rate_micros" bigint,
	"increment_min" integer,
	"increment_interval" integer,
	"price_micros" bigint NOT NULL,
	"supplier_id" text,
	"buy_rate_micros" bigint,
	"buy_bill_duration" integer,
	"buy_cost_micros" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"rate_deck_id" bigint,
	"connect_fee_micros" bigint,
	"min_charge_micros" bigint,
	"buy_rate_deck_id" bigint,
	"buy_connect_fee_micros" bigint,
	"buy_min_charge_micros" bigint,
	CONSTRAINT "calls_pkey" PRIMARY KEY("billing_group_id","start_time","id")
) PARTITION BY RANGE ("start_time");
--> statement-breakpoint
ALTER SEQUENCE "calls_id_seq" OWNED BY "calls"."id";--> statement-breakpoint
ALTER TABLE "calls_0007" DROP CONSTRAINT "calls_billing_group_id_billing_groups_id_fk";--> statement-breakpoint
ALTER TABLE "calls_0007" DROP CONSTRAINT "calls_supplier_id_suppliers_id_fk";--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_supplier_id_suppliers_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."suppliers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Catches the calls of a month that has no partition yet: nothing is refused, nothing lost.
CREATE TABLE "calls_default" PARTITION OF "calls" DEFAULT;--> statement-breakpoint
-- Makes sure every UTC month overlapping [from_time, to_time) has its partition calls_pYYYYMM; answers how many it
-- created. Cheap when they exist (a catalog lookup per month, no lock). A month's rows already in calls_default move
-- into its new partition in the same transaction (the new table is filled, then attached; ATTACH needs only SHARE
-- UPDATE EXCLUSIVE on calls, so reads and inserts of other months go on). Statement triggers of calls do not fire for
-- the move (it addresses the partitions), so the rollups, already counting these calls, stay exact. One maker at a time
-- (advisory lock): several app processes may meet a new month together. Called at every database open for a window
-- around now and by ingest for a month it has not seen (lib/db/call-partitions.ts).
CREATE FUNCTION ensure_call_partitions(from_time timestamptz, to_time timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  m timestamp := date_trunc('month', from_time AT TIME ZONE 'UTC');
  lo timestamptz;
  hi timestamptz;
  part text;
  locked boolean := false;
  created integer := 0;
BEGIN
  WHILE (m AT TIME ZONE 'UTC') < to_time LOOP
    lo := m AT TIME ZONE 'UTC';
    hi := (m + interval '1 month') AT TIME ZONE 'UTC';
    part := 'calls_p' || to_char(m, 'YYYYMM');
    IF to_regclass(format('public.%I', part)) IS NULL THEN
      IF NOT locked THEN
        PERFORM pg_advisory_xact_lock(727275);
        locked := true;
      END IF;
      -- Read pg_class itself, not the relation cache: a table another maker committed while we waited is seen.
      IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = part AND relnamespace = 'public'::regnamespace) THEN
        EXECUTE format('CREATE TABLE public.%I (LIKE public.calls INCLUDING DEFAULTS)', part);
        EXECUTE format('WITH moved AS (DELETE FROM public.calls_default WHERE start_time >= $1 AND start_time < $2 RETURNING *)
                        INSERT INTO public.%I SELECT * FROM moved', part) USING lo, hi;
        EXECUTE format('ALTER TABLE public.calls ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
        created := created + 1;
      END IF;
    END IF;
    m := m + interval '1 month';
  END LOOP;
  RETURN created;
END $$;
--> statement-breakpoint
-- A partition for every month the stored calls fall in (not the months between: no empty partitions for old gaps).
DO $$
DECLARE
  m timestamptz;
BEGIN
  FOR m IN SELECT DISTINCT date_trunc('month', start_time, 'UTC') FROM calls_0007 ORDER BY 1 LOOP
    PERFORM ensure_call_partitions(m, m + interval '1 second');
  END LOOP;
END $$;
--> statement-breakpoint
INSERT INTO "calls" SELECT * FROM "calls_0007";--> statement-breakpoint
CREATE TABLE "call_uuids" (
	"billing_group_id" text NOT NULL,
	"uuid" text NOT NULL,
	"start_time" timestamp (3) with time zone NOT NULL,
	"call_id" bigint NOT NULL,
	CONSTRAINT "call_uuids_pkey" PRIMARY KEY("billing_group_id","uuid")
);
--> statement-breakpoint
INSERT INTO "call_uuids" ("billing_group_id", "uuid", "start_time", "call_id") SELECT "billing_group_id", "uuid", "start_time", "id" FROM "calls_0007";--> statement-breakpoint
DROP TABLE "calls_0007";--> statement-breakpoint
CREATE INDEX "calls_id_idx" ON "calls" USING btree ("id");--> statement-breakpoint
CREATE INDEX "calls_start_id_idx" ON "calls" USING btree ("start_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "calls_group_hangup_start_id_idx" ON "calls" USING btree ("billing_group_id",upper("hangup_cause"),"start_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "calls_to_trgm_idx" ON "calls" USING gin ("to_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "calls_unrated_idx" ON "calls" USING btree ("billing_group_id") WHERE NOT "calls"."rated";--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_insert();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_update AFTER UPDATE ON calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_update();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS old_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_delete();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_truncate AFTER TRUNCATE ON calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_truncate();
--> statement-breakpoint
CREATE TRIGGER calls_settle_authorizations AFTER INSERT ON calls REFERENCING NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION authorizations_settle_on_call_insert();
--> statement-breakpoint
-- The ledger's unique keys lead with the group as well (it distributes with calls).
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_pkey";--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_pkey" PRIMARY KEY("billing_group_id","id");--> statement-breakpoint
DROP INDEX "ledger_call_debit_key";--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_call_debit_key" ON "ledger_entries" USING btree ("billing_group_id","call_id") WHERE "ledger_entries"."kind" = 'debit';
