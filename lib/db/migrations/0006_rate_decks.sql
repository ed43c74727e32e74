-- Dated rate decks (issue 13): every import adds a deck; the card in force at time t is the owner's deck with the
-- greatest effective_from <= t. The cards that exist become each owner's deck #1, in force since the epoch.
CREATE TABLE "rate_decks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rate_decks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"billing_group_id" text,
	"supplier_id" text,
	"effective_from" timestamp (3) with time zone NOT NULL,
	"imported_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rate_decks_one_owner" CHECK (("rate_decks"."billing_group_id" IS NULL) <> ("rate_decks"."supplier_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "rate_decks" ADD CONSTRAINT "rate_decks_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_decks" ADD CONSTRAINT "rate_decks_supplier_id_suppliers_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."suppliers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "rate_decks_group_from_key" ON "rate_decks" USING btree ("billing_group_id","effective_from");--> statement-breakpoint
CREATE UNIQUE INDEX "rate_decks_supplier_from_key" ON "rate_decks" USING btree ("supplier_id","effective_from");--> statement-breakpoint
INSERT INTO "rate_decks" ("billing_group_id", "effective_from")
  SELECT DISTINCT "billing_group_id", timestamptz '1970-01-01 00:00:00+00' FROM "sell_rates" ORDER BY 1;--> statement-breakpoint
INSERT INTO "rate_decks" ("supplier_id", "effective_from")
  SELECT DISTINCT "supplier_id", timestamptz '1970-01-01 00:00:00+00' FROM "buy_rates" ORDER BY 1;--> statement-breakpoint
ALTER TABLE "sell_rates" ADD COLUMN "deck_id" bigint;--> statement-breakpoint
ALTER TABLE "sell_rates" ADD COLUMN "connect_fee_micros" bigint;--> statement-breakpoint
ALTER TABLE "sell_rates" ADD COLUMN "min_charge_micros" bigint;--> statement-breakpoint
UPDATE "sell_rates" r SET "deck_id" = d."id" FROM "rate_decks" d WHERE d."billing_group_id" = r."billing_group_id";--> statement-breakpoint
ALTER TABLE "sell_rates" ALTER COLUMN "deck_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sell_rates" DROP CONSTRAINT "sell_rates_billing_group_id_prefix_pk";--> statement-breakpoint
ALTER TABLE "sell_rates" ADD CONSTRAINT "sell_rates_deck_id_prefix_pk" PRIMARY KEY("deck_id","prefix");--> statement-breakpoint
ALTER TABLE "sell_rates" ADD CONSTRAINT "sell_rates_deck_id_rate_decks_id_fk" FOREIGN KEY ("deck_id") REFERENCES "public"."rate_decks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sell_rates_group_prefix_idx" ON "sell_rates" USING btree ("billing_group_id","prefix");--> statement-breakpoint
ALTER TABLE "buy_rates" ADD COLUMN "deck_id" bigint;--> statement-breakpoint
ALTER TABLE "buy_rates" ADD COLUMN "connect_fee_micros" bigint;--> statement-breakpoint
ALTER TABLE "buy_rates" ADD COLUMN "min_charge_micros" bigint;--> statement-breakpoint
UPDATE "buy_rates" r SET "deck_id" = d."id" FROM "rate_decks" d WHERE d."supplier_id" = r."supplier_id";--> statement-breakpoint
ALTER TABLE "buy_rates" ALTER COLUMN "deck_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "buy_rates" DROP CONSTRAINT "buy_rates_supplier_id_prefix_pk";--> statement-breakpoint
ALTER TABLE "buy_rates" ADD CONSTRAINT "buy_rates_deck_id_prefix_pk" PRIMARY KEY("deck_id","prefix");--> statement-breakpoint
ALTER TABLE "buy_rates" ADD CONSTRAINT "buy_rates_deck_id_rate_decks_id_fk" FOREIGN KEY ("deck_id") REFERENCES "public"."rate_decks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "buy_rates_supplier_prefix_idx" ON "buy_rates" USING btree ("supplier_id","prefix");--> statement-breakpoint
-- Calls keep the decks that rated them and the matched rates' fees; calls rated before this migration keep null.
ALTER TABLE "calls" ADD COLUMN "rate_deck_id" bigint;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "connect_fee_micros" bigint;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "min_charge_micros" bigint;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "buy_rate_deck_id" bigint;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "buy_connect_fee_micros" bigint;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "buy_min_charge_micros" bigint;--> statement-breakpoint
-- One debit per call; re-rating adds 'adjustment' entries that name the same call.
CREATE UNIQUE INDEX "ledger_call_debit_key" ON "ledger_entries" USING btree ("call_id") WHERE "ledger_entries"."kind" = 'debit';--> statement-breakpoint
DROP INDEX "ledger_call_key";
