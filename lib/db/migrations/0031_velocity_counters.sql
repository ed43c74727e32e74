-- Velocity counters (issue 31 item 5, docs/contract.md "Limits"): the velocity rules read these instead of scanning
-- every authorization of their window, so a check costs at most the rule's maximum of rows, not the window's content.
-- Written and read only under the group's row lock (POST /v1/authorizations), in the admitting transaction: exact
-- with any number of processes, and a killed process's transaction rolls back with nothing counted.
-- A destination's last admitted call: the distinct destinations of a window are the rows seen within it.
CREATE TABLE "velocity_destinations" (
	"billing_group_id" text NOT NULL,
	"digits" text NOT NULL,
	"last_seen" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "velocity_destinations_billing_group_id_digits_pk" PRIMARY KEY("billing_group_id","digits")
);
--> statement-breakpoint
-- Admitted calls per (prefix, one-second bucket): a window's count is the sum of the buckets it touches.
CREATE TABLE "velocity_prefix_buckets" (
	"billing_group_id" text NOT NULL,
	"prefix" text NOT NULL,
	"bucket" bigint NOT NULL,
	"calls" integer NOT NULL,
	CONSTRAINT "velocity_prefix_buckets_billing_group_id_prefix_bucket_pk" PRIMARY KEY("billing_group_id","prefix","bucket")
);
--> statement-breakpoint
ALTER TABLE "velocity_destinations" ADD CONSTRAINT "velocity_destinations_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "velocity_prefix_buckets" ADD CONSTRAINT "velocity_prefix_buckets_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "velocity_destinations_seen_idx" ON "velocity_destinations" USING btree ("billing_group_id","last_seen");
