-- Quality alerts (docs/contract.md "Quality windows and alerts"): per account, and per dialled-number prefix ('' is
-- the whole account), the thresholds of ASR, ACD and PDD over a sliding window of the account's outbound calls, with
-- the state each metric was last seen in. lib/quality/evaluate-quality.ts reads the windows from calls on a schedule
-- (never in the ingest transaction) and flips a state with a conditional UPDATE in the transaction that writes the
-- event to the webhook outbox and the audit log, so each crossing fires once, whatever the number of processes.
CREATE TABLE "quality_thresholds" (
	"billing_group_id" text NOT NULL,
	"prefix" text DEFAULT '' NOT NULL,
	"window_minutes" integer NOT NULL,
	"min_calls" integer NOT NULL,
	"asr_min_bp" integer,
	"acd_min_seconds" integer,
	"pdd_max_ms" integer,
	"asr_low" boolean DEFAULT false NOT NULL,
	"acd_low" boolean DEFAULT false NOT NULL,
	"pdd_high" boolean DEFAULT false NOT NULL,
	"evaluated_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quality_thresholds_billing_group_id_prefix_pk" PRIMARY KEY("billing_group_id","prefix")
);
--> statement-breakpoint
ALTER TABLE "quality_thresholds" ADD CONSTRAINT "quality_thresholds_billing_group_id_billing_groups_id_fk" FOREIGN KEY ("billing_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- One event in the outbox with the data its emitter built, and one delivery per enabled endpoint of the group (or of
-- the platform) subscribed to its type: what webhook_event_emit did for balance events, now for any event (quality
-- alerts, limit and fraud rule hits) written from TypeScript (lib/alerts/emit-event.ts) or SQL.
CREATE OR REPLACE FUNCTION webhook_event_emit_data(event_type text, group_id text, data jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  event_id text := 'msg_' || replace(gen_random_uuid()::text, '-', '');
  created timestamptz := clock_timestamp();
BEGIN
  INSERT INTO webhook_events (id, type, billing_group_id, body, created_at)
  VALUES (event_id, event_type, group_id,
    jsonb_build_object('type', event_type,
      'timestamp', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', data)::text,
    created);
  INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT event_id, e.id, created FROM webhook_endpoints e
  WHERE (e.billing_group_id IS NULL OR e.billing_group_id = group_id) AND e.disabled_at IS NULL
    AND (e.event_types @> ARRAY['*'] OR e.event_types @> ARRAY[event_type]);
  RETURN event_id;
END $$;
--> statement-breakpoint
-- As in 0018, the outbox rows written by webhook_event_emit_data (one place builds events).
CREATE OR REPLACE FUNCTION webhook_event_emit(event_type text, g billing_groups, threshold bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
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
  PERFORM webhook_event_emit_data(event_type, g.id, data);
END $$;
