-- Webhook endpoints managed over /v1 and in the portal (README "Alerts and webhooks"): each endpoint subscribes to
-- event types (`*`: every type, what endpoints made before had) and can be disabled (its deliveries wait, and no new
-- ones are made for it); every delivery attempt is kept for the delivery log (time, status, duration, an excerpt of
-- the answer, the error); a resend restarts a delivery's retries from `retry_base`; a test event concerns one
-- endpoint, a platform one too, so an event's group may be null.
ALTER TABLE "webhook_endpoints" ADD COLUMN "event_types" text[] DEFAULT '{*}' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "billing_group_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "retry_base" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "webhook_delivery_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_delivery_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"attempted_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status" integer,
	"error" text,
	"response_excerpt" text
);
--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_fk" FOREIGN KEY ("event_id","endpoint_id") REFERENCES "public"."webhook_deliveries"("event_id","endpoint_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_delivery_idx" ON "webhook_delivery_attempts" USING btree ("endpoint_id","event_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id");--> statement-breakpoint
-- As in 0007, and a delivery only for the enabled endpoints subscribed to the type.
CREATE OR REPLACE FUNCTION webhook_event_emit(event_type text, g billing_groups, threshold bigint) RETURNS void LANGUAGE plpgsql AS $$
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
  SELECT event_id, e.id, created FROM webhook_endpoints e
  WHERE (e.billing_group_id IS NULL OR e.billing_group_id = g.id) AND e.disabled_at IS NULL
    AND (e.event_types @> ARRAY['*'] OR e.event_types @> ARRAY[event_type]);
END $$;
