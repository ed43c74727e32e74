CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"display_prefix" text NOT NULL,
	"hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"billing_group_id" text,
	"name" text,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"currency" char(3) NOT NULL,
	"balance_micros" bigint DEFAULT 0 NOT NULL,
	"credit_limit_micros" bigint DEFAULT 0 NOT NULL,
	"accountcode" text,
	"disabled_by_operator" boolean DEFAULT false NOT NULL,
	"disabled" boolean GENERATED ALWAYS AS (disabled_by_operator OR balance_micros <= -credit_limit_micros) STORED NOT NULL,
	"rate_card_version" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "buy_rates" (
	"supplier_id" text NOT NULL,
	"prefix" text NOT NULL,
	"rate_micros" bigint NOT NULL,
	"increment_min" integer NOT NULL,
	"increment_interval" integer NOT NULL,
	"description" text,
	CONSTRAINT "buy_rates_supplier_id_prefix_pk" PRIMARY KEY("supplier_id","prefix")
);
--> statement-breakpoint
CREATE TABLE "calls" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "calls_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"billing_group_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"call_id" bigint,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sell_rates" (
	"billing_group_id" text NOT NULL,
	"prefix" text NOT NULL,
	"rate_micros" bigint NOT NULL,
	"increment_min" integer NOT NULL,
	"increment_interval" integer NOT NULL,
	"description" text,
	CONSTRAINT "sell_rates_billing_group_id_prefix_pk" PRIMARY KEY("billing_group_id","prefix")
);
--> statement-breakpoint
CREATE TABLE "suppliers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"gateway_name" text,
	"rate_card_version" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buy_rates" ADD CONSTRAINT "buy_rates_supplier_id_suppliers_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."suppliers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_supplier_id_suppliers_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."suppliers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sell_rates" ADD CONSTRAINT "sell_rates_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_groups_accountcode_key" ON "billing_groups" USING btree ("accountcode");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_uuid_key" ON "calls" USING btree ("uuid");--> statement-breakpoint
CREATE INDEX "calls_group_start_id_idx" ON "calls" USING btree ("billing_group_id","start_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "calls_start_id_idx" ON "calls" USING btree ("start_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "calls_group_hangup_start_id_idx" ON "calls" USING btree ("billing_group_id",upper("hangup_cause"),"start_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "calls_to_trgm_idx" ON "calls" USING gin ("to_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "calls_unrated_idx" ON "calls" USING btree ("billing_group_id") WHERE NOT "calls"."rated";--> statement-breakpoint
CREATE INDEX "ledger_group_idx" ON "ledger_entries" USING btree ("billing_group_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_call_key" ON "ledger_entries" USING btree ("call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "suppliers_gateway_name_key" ON "suppliers" USING btree ("gateway_name");