-- Real-time limits (issue 31, docs/contract.md "Limits"): what POST /v1/authorizations enforces per account. Two
-- layers, each a JSON document of lib/limits/schemas.ts: the operator's and the customer's (which may only tighten).
-- The hot path reads this row in the statement that locks the group's row, so a group without limits costs nothing.
CREATE TABLE "account_limits" (
	"billing_group_id" text PRIMARY KEY NOT NULL,
	"operator" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"customer" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_limits" ADD CONSTRAINT "account_limits_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Authorizations refused by a limit (GET /v1/authorizations/refusals): nothing was reserved for them.
CREATE TABLE "authorization_refusals" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "authorization_refusals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"billing_group_id" text NOT NULL,
	"uuid" text NOT NULL,
	"destination" text NOT NULL,
	"code" text NOT NULL,
	"limit_name" text NOT NULL,
	"limit_value" text NOT NULL,
	"current_value" text NOT NULL,
	"detail" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "authorization_refusals" ADD CONSTRAINT "authorization_refusals_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "authorization_refusals_group_idx" ON "authorization_refusals" USING btree ("billing_group_id","created_at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX "authorization_refusals_created_idx" ON "authorization_refusals" USING btree ("created_at" DESC,"id" DESC);--> statement-breakpoint
-- The calls-per-second and velocity rules count a group's authorizations in a sliding window of created_at.
CREATE INDEX "authorizations_created_idx" ON "authorizations" USING btree ("billing_group_id","created_at");
