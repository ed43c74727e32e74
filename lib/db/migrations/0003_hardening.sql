CREATE TABLE "portal_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"ended_at" timestamp (3) with time zone
);
--> statement-breakpoint
DROP INDEX "calls_uuid_key";--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portal_sessions_key_idx" ON "portal_sessions" USING btree ("key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_group_uuid_key" ON "calls" USING btree ("billing_group_id","uuid");--> statement-breakpoint
-- An ended or deleted portal session drops every process's cached principals, as a revoked key does.
CREATE TRIGGER portal_sessions_notify_auth AFTER UPDATE OR DELETE ON portal_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change();
