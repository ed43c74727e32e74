-- Reservations at every tier (issue 32 item 2, docs/contract.md "Reseller tiers"): an authorization of an account
-- with ancestors also holds, at each ancestor, that ancestor's price of the granted call at its own deck (what ingest
-- will debit it: call_tier_charges). A hold counts against its tier while its authorization is open (not settled,
-- not expired): the CDR's settlement deletes them and the expiry ends them with the account's own reservation.
-- expires_at is the authorization's, copied so a tier's open holds are read by (tier, expires_at) without its history.
CREATE TABLE "authorization_tier_holds" (
	"tier_group_id" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"uuid" text NOT NULL,
	"depth" smallint NOT NULL,
	"reserved_micros" bigint NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "authorization_tier_holds_pkey" PRIMARY KEY("billing_group_id","uuid","tier_group_id")
);
--> statement-breakpoint
ALTER TABLE "authorization_tier_holds" ADD CONSTRAINT "authorization_tier_holds_authorization_fk" FOREIGN KEY ("billing_group_id","uuid") REFERENCES "public"."authorizations"("billing_group_id","uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "authorization_tier_holds" ADD CONSTRAINT "authorization_tier_holds_tier_group_id_billing_groups_id_fk" FOREIGN KEY ("tier_group_id") REFERENCES "public"."billing_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "authorization_tier_holds_tier_idx" ON "authorization_tier_holds" USING btree ("tier_group_id","expires_at");--> statement-breakpoint
-- The open holds of a tier's subtree at it: not expired (the authorization's expires_at, copied), not settled (the
-- settlement deletes them, below). No join to authorizations: a tier's sum reads only its open holds by the index
-- (a join per hold cost a lookup each, and a plan on stale statistics a scan of every open authorization per hold).
CREATE FUNCTION tier_held(p_tier text) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(h.reserved_micros), 0)::bigint FROM authorization_tier_holds h
    WHERE h.tier_group_id = p_tier AND h.expires_at > now()
$$;
--> statement-breakpoint
-- The CDR's settlement (0007) also frees the settled authorizations' holds at every tier, in the ingest's transaction;
-- still skipped at once while no reservation is open.
CREATE OR REPLACE FUNCTION authorizations_settle_on_call_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM authorizations WHERE settled_at IS NULL) THEN
    UPDATE authorizations a SET settled_at = now(), call_id = n.id
    FROM new_calls n
    WHERE a.billing_group_id = n.billing_group_id AND a.uuid = n.uuid AND a.settled_at IS NULL;
    DELETE FROM authorization_tier_holds h USING new_calls n
    WHERE h.billing_group_id = n.billing_group_id AND h.uuid = n.uuid;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The one copy of "what blocks a tier" (authorize_state below and GET /v1/balances providerOnHold): every ancestor
-- from p_parent up, nearest first, with its rate_card_version, its headroom (balance + credit limit, less its own
-- open reservations and its subtree's open holds at it) and the reason it blocks its subtree's calls, null when it
-- does not: disabled by the operator, at its credit limit, or no headroom. Reads without locks: the caller decides
-- what it holds (authorize_state holds every tier's lock, so the holds it reads are exact).
CREATE FUNCTION ancestor_tiers(p_parent text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up AS (
    SELECT p.id, p.parent_id, 1 AS depth FROM billing_groups p WHERE p.id = p_parent
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM billing_groups p JOIN up ON p.id = up.parent_id
  ), t AS (
    SELECT up.id, up.depth, g.rate_card_version, g.disabled_by_operator, g.balance_micros, g.credit_limit_micros,
           g.balance_micros + g.credit_limit_micros
           - (SELECT coalesce(sum(a.reserved_micros), 0) FROM authorizations a
               WHERE a.billing_group_id = up.id AND a.settled_at IS NULL AND a.expires_at > now())
           - tier_held(up.id) AS headroom
    FROM up JOIN billing_groups g ON g.id = up.id
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'depth', t.depth, 'version', t.rate_card_version, 'headroom', t.headroom::text,
           'reason', CASE WHEN t.disabled_by_operator THEN 'operator'
                          WHEN t.balance_micros <= -t.credit_limit_micros THEN 'credit_limit'
                          WHEN t.headroom <= 0 THEN 'reserved' END) ORDER BY t.depth), '[]'::jsonb)
  FROM t
$$;
--> statement-breakpoint
-- authorize_state (0032, 0033) re-created: it takes the tier locks first (above) and answers `tiers` from
-- ancestor_tiers instead of its own copy of the blocking condition; the rest is unchanged.
CREATE OR REPLACE FUNCTION authorize_state(p_group text, p_uuid text, p_digits text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  grp record;
  st jsonb;
  act record;
  t_now timestamptz;
  layer jsonb;
  r jsonb;
  w integer;
  n bigint;
  dd jsonb := '[]'::jsonb;
  pp jsonb := '[]'::jsonb;
  longest_d integer := 0;
  longest_p integer := 0;
  spent record;
BEGIN
  -- The tier lock of the account and of every ancestor, in the order of their keys (no two authorizations wait on each
  -- other in a circle), before the account's row: whoever reserves against a tier's headroom (its own authorizations
  -- and its subtree's) holds that tier's lock. parent_id never changes, so the walk needs no lock.
  PERFORM count(pg_advisory_xact_lock(727300, k)) FROM (
    SELECT DISTINCT hashtext(c.id) AS k FROM (
      WITH RECURSIVE up AS (
        SELECT g.id, g.parent_id FROM billing_groups g WHERE g.id = p_group
        UNION ALL
        SELECT p.id, p.parent_id FROM billing_groups p JOIN up ON p.id = up.parent_id
      ) SELECT up.id FROM up) c
    ORDER BY k) keys;
  SELECT g.balance_micros, g.credit_limit_micros, g.disabled, g.rate_card_version, g.time_zone, g.parent_id,
         l.operator, l.customer, coalesce(cardinality(l.hit) > 0, false) AS hit
    INTO grp
    FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
    WHERE g.id = p_group FOR UPDATE OF g;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  st := jsonb_build_object(
    'balance', grp.balance_micros::text, 'creditLimit', grp.credit_limit_micros::text, 'disabled', grp.disabled,
    'version', grp.rate_card_version, 'timeZone', grp.time_zone, 'limitsHit', grp.hit,
    'operator', grp.operator, 'customer', grp.customer,
    'existing', EXISTS (SELECT 1 FROM authorizations a WHERE a.billing_group_id = p_group AND a.uuid = p_uuid),
    'callId', (SELECT c.call_id::text FROM call_uuids c WHERE c.billing_group_id = p_group AND c.uuid = p_uuid));
  IF (st->>'existing')::boolean OR st->>'callId' IS NOT NULL THEN
    RETURN st;
  END IF;
  -- Every ancestor, nearest first, with its headroom and what blocks it (ancestor_tiers). A root account walks nothing.
  IF grp.parent_id IS NOT NULL THEN
    st := st || jsonb_build_object('tiers', ancestor_tiers(grp.parent_id));
  END IF;
  SELECT count(*) AS n, coalesce(sum(a.reserved_micros), 0)::text AS total INTO act
    FROM authorizations a WHERE a.billing_group_id = p_group AND a.settled_at IS NULL AND a.expires_at > now();
  -- The holds of the account's own subtree at it count against its balance like its own reservations (0 for a leaf).
  st := st || jsonb_build_object('activeCount', act.n, 'activeMicros', act.total, 'heldMicros', tier_held(p_group)::text);
  IF grp.operator IS NULL THEN
    RETURN st;
  END IF;
  t_now := clock_timestamp();
  IF jsonb_typeof(grp.operator->'callsPerSecond') = 'number' OR jsonb_typeof(grp.customer->'callsPerSecond') = 'number' THEN
    st := st || jsonb_build_object('cps', (SELECT count(*) FROM authorizations a
      WHERE a.billing_group_id = p_group AND a.created_at > t_now - interval '1 second'));
  END IF;
  FOREACH layer IN ARRAY ARRAY[grp.operator, grp.customer] LOOP
    r := layer->'distinctDestinations';
    IF jsonb_typeof(r) = 'object' THEN
      w := (r->>'windowSeconds')::integer;
      SELECT count(*) INTO n FROM (SELECT 1 FROM velocity_destinations v
        WHERE v.billing_group_id = p_group AND v.last_seen > t_now - make_interval(secs => w)
        LIMIT (r->>'max')::bigint + 1) x;
      dd := dd || jsonb_build_array(jsonb_build_object('n', n, 'seen', EXISTS (SELECT 1 FROM velocity_destinations v
        WHERE v.billing_group_id = p_group AND v.digits = p_digits AND v.last_seen > t_now - make_interval(secs => w))));
      longest_d := greatest(longest_d, w);
    END IF;
    r := layer->'callsPerPrefix';
    IF jsonb_typeof(r) = 'object' THEN
      w := (r->>'windowSeconds')::integer;
      pp := pp || jsonb_build_array((SELECT coalesce(jsonb_object_agg(s.prefix, s.calls), '{}'::jsonb) FROM (
        SELECT b.prefix, sum(b.calls) AS calls FROM velocity_prefix_buckets b
        WHERE b.billing_group_id = p_group
          AND b.prefix = ANY (ARRAY(SELECT left(p_digits, i) FROM generate_series(1, length(p_digits)) i))
          AND b.bucket >= floor(extract(epoch FROM t_now - make_interval(secs => w)))
        GROUP BY b.prefix) s));
      longest_p := greatest(longest_p, w);
    END IF;
  END LOOP;
  st := st || jsonb_build_object('destinations', dd, 'prefixes', pp);
  IF longest_d > 0 THEN
    DELETE FROM velocity_destinations v
      WHERE v.billing_group_id = p_group AND v.last_seen <= t_now - make_interval(secs => longest_d);
  END IF;
  IF longest_p > 0 THEN
    DELETE FROM velocity_prefix_buckets b
      WHERE b.billing_group_id = p_group AND b.bucket < floor(extract(epoch FROM t_now - make_interval(secs => longest_p))) - 1;
  END IF;
  IF jsonb_typeof(grp.operator->'dailySpendMicros') = 'string' OR jsonb_typeof(grp.customer->'dailySpendMicros') = 'string'
     OR jsonb_typeof(grp.operator->'monthlySpendMicros') = 'string' OR jsonb_typeof(grp.customer->'monthlySpendMicros') = 'string' THEN
    SELECT * INTO spent FROM settled_spend(p_group, grp.time_zone);
    st := st || jsonb_build_object('spentToday', spent.today::text, 'spentBefore', spent.before::text);
  END IF;
  RETURN st;
END;
$$;
