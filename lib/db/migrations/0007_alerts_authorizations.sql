CREATE TABLE "authorizations" (
	"billing_group_id" text NOT NULL,
	"uuid" text NOT NULL,
	"destination" text NOT NULL,
	"from_number" text,
	"matched_prefix" text NOT NULL,
	"sell_rate_micros" bigint NOT NULL,
	"increment_min" integer NOT NULL,
	"increment_interval" integer NOT NULL,
	"max_duration_seconds" integer NOT NULL,
	"reserved_micros" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"settled_at" timestamp (3) with time zone,
	"call_id" bigint,
	CONSTRAINT "authorizations_billing_group_id_uuid_pk" PRIMARY KEY("billing_group_id","uuid")
);
--> statement-breakpoint
CREATE TABLE "balance_alert_thresholds" (
	"billing_group_id" text NOT NULL,
	"threshold_micros" bigint NOT NULL,
	"crossed" boolean NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balance_alert_thresholds_billing_group_id_threshold_micros_pk" PRIMARY KEY("billing_group_id","threshold_micros")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"event_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp (3) with time zone,
	"delivered_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"last_status" integer,
	"last_error" text,
	CONSTRAINT "webhook_deliveries_event_id_endpoint_id_pk" PRIMARY KEY("event_id","endpoint_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"billing_group_id" text,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_secrets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"endpoint_id" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "authorizations" ADD CONSTRAINT "authorizations_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_alert_thresholds" ADD CONSTRAINT "balance_alert_thresholds_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "authorizations_active_idx" ON "authorizations" USING btree ("billing_group_id","expires_at") WHERE settled_at IS NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE delivered_at IS NULL AND failed_at IS NULL;--> statement-breakpoint
CREATE INDEX "webhook_events_group_idx" ON "webhook_events" USING btree ("billing_group_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_secrets_endpoint_idx" ON "webhook_secrets" USING btree ("endpoint_id");--> statement-breakpoint
-- Balance alerts (issue 13): one AFTER UPDATE row trigger on billing_groups sees every balance change in the
-- transaction that makes it (ingest debit, top-up, re-rating, manual SQL), so the outbox row commits or rolls back
-- with the debit itself. A threshold fires when its `crossed` state flips: once per crossing, never again while the
-- balance stays on the same side. `disabled` (generated) flipping fires group.disabled / group.enabled.
CREATE FUNCTION webhook_event_emit(event_type text, g billing_groups, threshold bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  event_id text := 'msg_' || replace(gen_random_uuid()::text, '-', '');
  created timestamptz := clock_timestamp();
  data jsonb;
BEGIN
  data := jsonb_build_object(
    'billingGroupId', g.id,
    'name', g.name,
    'currency', trim(g.currency),
    'balance', trim_scale(g.balance_micros::numeric / 1000000),
    'creditLimit', trim_scale(g.credit_limit_micros::numeric / 1000000),
    'disabled', g.disabled);
  IF threshold IS NOT NULL THEN
    data := data || jsonb_build_object('threshold', trim_scale(threshold::numeric / 1000000));
  END IF;
  INSERT INTO webhook_events (id, type, billing_group_id, body, created_at)
  VALUES (event_id, event_type, g.id,
    jsonb_build_object('type', event_type,
      'timestamp', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', data)::text,
    created);
  INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT event_id, e.id, created FROM webhook_endpoints e WHERE e.billing_group_id IS NULL OR e.billing_group_id = g.id;
END $$;
--> statement-breakpoint
CREATE FUNCTION balance_alerts_on_group_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t record;
BEGIN
  IF NEW.balance_micros IS DISTINCT FROM OLD.balance_micros THEN
    FOR t IN
      WITH flipped AS (
        UPDATE balance_alert_thresholds SET crossed = (NEW.balance_micros <= threshold_micros)
        WHERE billing_group_id = NEW.id AND crossed <> (NEW.balance_micros <= threshold_micros)
        RETURNING threshold_micros, crossed)
      SELECT * FROM flipped ORDER BY CASE WHEN crossed THEN -threshold_micros ELSE threshold_micros END
    LOOP
      PERFORM webhook_event_emit(CASE WHEN t.crossed THEN 'balance.low' ELSE 'balance.recovered' END, NEW, t.threshold_micros);
    END LOOP;
  END IF;
  IF NEW.disabled IS DISTINCT FROM OLD.disabled THEN
    PERFORM webhook_event_emit(CASE WHEN NEW.disabled THEN 'group.disabled' ELSE 'group.enabled' END, NEW, NULL);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER billing_groups_balance_alerts AFTER UPDATE ON billing_groups FOR EACH ROW
  WHEN (OLD.balance_micros IS DISTINCT FROM NEW.balance_micros OR OLD.disabled IS DISTINCT FROM NEW.disabled)
  EXECUTE FUNCTION balance_alerts_on_group_update();
--> statement-breakpoint
-- Prepaid authorizations (issue 13): the final CDR (same group and uuid) settles the reservation in the ingest's own
-- transaction. The call is debited by ingest as always (once); the reservation stops counting, which returns the
-- unused part. Skipped at once while no reservation is open.
CREATE FUNCTION authorizations_settle_on_call_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM authorizations WHERE settled_at IS NULL) THEN
    UPDATE authorizations a SET settled_at = now(), call_id = n.id
    FROM new_calls n
    WHERE a.billing_group_id = n.billing_group_id AND a.uuid = n.uuid AND a.settled_at IS NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER calls_settle_authorizations AFTER INSERT ON calls REFERENCING NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION authorizations_settle_on_call_insert();
