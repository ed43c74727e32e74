-- Reseller tiers (issue 32, docs/contract.md "Reseller tiers"): an account may have a parent account (operator >
-- reseller > customer > ...). A root account (no parent) buys from the operator; a child buys from its parent at the
-- child's own sell deck, in its parent's currency. The parent is set when the account is created and never changes,
-- so the tree has no cycles.
ALTER TABLE "billing_groups" ADD COLUMN "parent_id" text;--> statement-breakpoint
ALTER TABLE "billing_groups" ADD CONSTRAINT "billing_groups_parent_id_billing_groups_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."billing_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_groups" ADD CONSTRAINT "billing_groups_parent_not_self" CHECK ("parent_id" <> "id");--> statement-breakpoint
CREATE INDEX "billing_groups_parent_idx" ON "billing_groups" ("parent_id") WHERE "parent_id" IS NOT NULL;--> statement-breakpoint
-- What each tier above a call's account pays its own parent for that call, rated at that tier's sell deck: one row per
-- call and ancestor (depth 1 = the account's parent). The call's own price stays on calls.price_micros (what the
-- account pays its parent); the operator's carrier cost stays on calls.buy_cost_micros. Keyed like calls (the call's
-- group and start time lead), so it distributes with calls; read per tier by call_tier_charges_tier_idx.
CREATE TABLE "call_tier_charges" (
	"billing_group_id" text NOT NULL,
	"start_time" timestamp (3) with time zone NOT NULL,
	"call_id" bigint NOT NULL,
	"tier_group_id" text NOT NULL,
	"depth" smallint NOT NULL,
	"rated" boolean NOT NULL,
	"matched_prefix" text,
	"rate_micros" bigint,
	"bill_duration" integer NOT NULL,
	"price_micros" bigint NOT NULL,
	"rate_deck_id" bigint,
	CONSTRAINT "call_tier_charges_pkey" PRIMARY KEY("billing_group_id","start_time","call_id","tier_group_id")
);--> statement-breakpoint
ALTER TABLE "call_tier_charges" ADD CONSTRAINT "call_tier_charges_tier_group_id_billing_groups_id_fk" FOREIGN KEY ("tier_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_tier_charges_tier_idx" ON "call_tier_charges" ("tier_group_id","start_time");
