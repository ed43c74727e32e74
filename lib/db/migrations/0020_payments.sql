-- Mail outbox: a message is written in the transaction that causes it (an invoice issued, an auto-recharge that
-- failed for good) and sent after commit by the mail worker (lib/mail/outbox.ts). `key` names the cause and the
-- recipient, so a cause mails each recipient once whatever re-runs; `attachment` is a reference the sender resolves
-- (an invoice's PDF).
CREATE TABLE "mail_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"key" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"attachment" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp (3) with time zone,
	"sent_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mail_outbox_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("next_attempt_at") WHERE sent_at IS NULL AND failed_at IS NULL;
--> statement-breakpoint
-- The payment provider's customer of a group and the card it saved (Checkout with setup_future_usage off_session),
-- which auto-recharge charges.
CREATE TABLE "payment_customers" (
	"billing_group_id" text PRIMARY KEY NOT NULL REFERENCES "billing_groups"("id") ON DELETE cascade,
	"provider" text NOT NULL,
	"customer_id" text NOT NULL,
	"payment_method_id" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Money received: one row per provider payment (a Checkout Session, an off-session PaymentIntent), written first in
-- the transaction of its ledger credit (ledger_entry_id is filled in by it). The unique keys make a retried or
-- concurrently delivered event credit once.
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"billing_group_id" text NOT NULL REFERENCES "billing_groups"("id") ON DELETE cascade,
	"provider" text NOT NULL,
	"source" text NOT NULL,
	"reference" text NOT NULL,
	"event_id" text,
	"amount_micros" bigint NOT NULL,
	"currency" text NOT NULL,
	"ledger_entry_id" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payments_source" CHECK ("source" IN ('checkout', 'auto_recharge')),
	CONSTRAINT "payments_amount_positive" CHECK ("amount_micros" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_reference_key" ON "payments" USING btree ("provider", "reference");
--> statement-breakpoint
CREATE UNIQUE INDEX "payments_event_key" ON "payments" USING btree ("provider", "event_id");
--> statement-breakpoint
CREATE INDEX "payments_group_idx" ON "payments" USING btree ("billing_group_id", "created_at");
--> statement-breakpoint
-- Auto-recharge: "when the balance falls below threshold, charge amount to the saved card". `crossed` is true while
-- the balance is below the threshold; `crossings` counts the falls, and each fall queues one charge keyed by it.
CREATE TABLE "auto_recharge_settings" (
	"billing_group_id" text PRIMARY KEY NOT NULL REFERENCES "billing_groups"("id") ON DELETE cascade,
	"threshold_micros" bigint NOT NULL,
	"amount_micros" bigint NOT NULL,
	"crossed" boolean NOT NULL,
	"crossings" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_recharge_amount_positive" CHECK ("amount_micros" > 0)
);
--> statement-breakpoint
CREATE TABLE "auto_recharge_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"billing_group_id" text NOT NULL REFERENCES "billing_groups"("id") ON DELETE cascade,
	"crossing" bigint NOT NULL,
	"amount_micros" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"declines" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp (3) with time zone,
	"reference" text,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	CONSTRAINT "auto_recharge_charges_status" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "auto_recharge_charges_crossing_key" ON "auto_recharge_charges" USING btree ("billing_group_id", "crossing");
--> statement-breakpoint
CREATE INDEX "auto_recharge_charges_due_idx" ON "auto_recharge_charges" USING btree ("next_attempt_at") WHERE status = 'pending';
--> statement-breakpoint
-- The crossing, seen as balance alerts see theirs: in the transaction that moves the balance (an AFTER UPDATE row
-- trigger on billing_groups), so the queued charge commits or rolls back with the debit. Falling below flips
-- `crossed` once; the balance staying below queues nothing more; rising to the threshold or above re-arms it.
CREATE FUNCTION auto_recharge_on_group_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s record;
BEGIN
  UPDATE auto_recharge_settings
  SET crossed = (NEW.balance_micros < threshold_micros),
      crossings = crossings + CASE WHEN NEW.balance_micros < threshold_micros THEN 1 ELSE 0 END
  WHERE billing_group_id = NEW.id AND crossed <> (NEW.balance_micros < threshold_micros)
  RETURNING crossed, crossings, amount_micros INTO s;
  IF FOUND AND s.crossed THEN
    INSERT INTO auto_recharge_charges (id, billing_group_id, crossing, amount_micros, currency)
    VALUES ('arc_' || replace(gen_random_uuid()::text, '-', ''), NEW.id, s.crossings, s.amount_micros, trim(NEW.currency))
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER billing_groups_auto_recharge AFTER UPDATE ON billing_groups FOR EACH ROW
  WHEN (OLD.balance_micros IS DISTINCT FROM NEW.balance_micros)
  EXECUTE FUNCTION auto_recharge_on_group_update();
