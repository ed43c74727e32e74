-- Stored answers of POSTs sent with an Idempotency-Key (lib/idempotency, README "Idempotent requests"): one row per
-- (API key, idempotency key), first writer wins on the primary key. `status` is NULL while the first request runs
-- (`locked_until` bounds how long: a process that died leaves a lock that lapses). Rows older than 24 hours are
-- ignored and deleted.
CREATE TABLE IF NOT EXISTS "idempotency_keys" (
	"key_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" integer,
	"response_headers" text,
	"response_body" text,
	"locked_until" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key_id", "idempotency_key")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");
--> statement-breakpoint
-- Background CSV exports (lib/exports, README "Background exports"): the job row is claimed with a lease
-- (SKIP LOCKED), the file is kept in export_chunks (one row per page, written with the job's position in one
-- transaction, so a job taken over after its process died resumes exactly where the last page ended).
CREATE TABLE IF NOT EXISTS "exports" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"billing_group_id" text,
	"with_cost" boolean NOT NULL,
	"filters" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"rows_estimated" bigint,
	"rows_done" bigint DEFAULT 0 NOT NULL,
	"chunks" integer DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"cursor" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"leased_until" timestamp (3) with time zone,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "exports_status_check" CHECK ("status" IN ('queued', 'running', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "exports_key_idx" ON "exports" USING btree ("key_id", "created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "exports_pending_idx" ON "exports" USING btree ("created_at") WHERE status IN ('queued', 'running');
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "export_chunks" (
	"export_id" text NOT NULL REFERENCES "exports"("id") ON DELETE CASCADE,
	"seq" integer NOT NULL,
	"body" text NOT NULL,
	CONSTRAINT "export_chunks_pkey" PRIMARY KEY ("export_id", "seq")
);
