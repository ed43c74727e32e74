-- A layer of limits per reseller above the account (issue 32, docs/contract.md "Limits"): 0038 gave the account one
-- provider layer, written by whichever reseller above it wrote last, so a sub-reseller could replace (and loosen) the
-- limits its own reseller had set on its customer. Now each reseller's layer is kept under its own account id, every
-- one of them holds at authorization, and a reseller's may only tighten those of the resellers above it
-- (lib/limits/manage-limits.ts). A layer written so far is its account's parent's: 0038 said the parent sets it.
ALTER TABLE account_limits ADD COLUMN providers jsonb NOT NULL DEFAULT '{}'::jsonb;
--> statement-breakpoint
UPDATE account_limits l SET providers = jsonb_build_object(g.parent_id, l.provider)
  FROM billing_groups g WHERE g.id = l.billing_group_id AND g.parent_id IS NOT NULL AND l.provider <> '{}'::jsonb;
--> statement-breakpoint
ALTER TABLE account_limits DROP COLUMN provider;
--> statement-breakpoint
-- authorize_state (0038) re-created: the layers are the operator's, every provider's and the customer's, answered as
-- `providers` (an array, in the order the windows are counted); the rest is unchanged.
CREATE OR REPLACE FUNCTION authorize_state(p_group text, p_uuid text, p_digits text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  grp record;
  st jsonb;
  act record;
  t_now timestamptz;
  layer jsonb;
  layers jsonb[];
  has_cps boolean := false;
  has_spend boolean := false;
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
  PERFORM lock_tiers(ARRAY(
    WITH RECURSIVE up AS (
      SELECT g.id, g.parent_id FROM billing_groups g WHERE g.id = p_group
      UNION ALL
      SELECT p.id, p.parent_id FROM billing_groups p JOIN up ON p.id = up.parent_id
    ) SELECT up.id FROM up));
  SELECT g.balance_micros, g.credit_limit_micros, g.disabled, g.rate_card_version, g.time_zone, g.parent_id,
         l.operator, l.providers, l.customer, coalesce(cardinality(l.hit) > 0, false) AS hit
    INTO grp
    FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
    WHERE g.id = p_group FOR UPDATE OF g;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  -- Every layer, in the order the windows are counted and lib/limits/layers.ts effectiveLimits reads them: the
  -- operator's, each provider's by its account id (bytewise), the customer's. No row: no layers at all. Most accounts
  -- have no provider layer: no query for them.
  IF grp.operator IS NULL THEN
    layers := ARRAY[]::jsonb[];
  ELSIF grp.providers = '{}'::jsonb THEN
    layers := ARRAY[grp.operator, grp.customer];
  ELSE
    layers := ARRAY[grp.operator]
      || ARRAY(SELECT e.value FROM jsonb_each(grp.providers) e ORDER BY e.key COLLATE "C") || ARRAY[grp.customer];
  END IF;
  st := jsonb_build_object(
    'balance', grp.balance_micros::text, 'creditLimit', grp.credit_limit_micros::text, 'disabled', grp.disabled,
    'version', grp.rate_card_version, 'timeZone', grp.time_zone, 'limitsHit', grp.hit,
    'operator', grp.operator, 'customer', grp.customer,
    'providers', CASE WHEN grp.operator IS NULL THEN NULL ELSE to_jsonb(layers[2:cardinality(layers) - 1]) END,
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
  -- Which counts any layer needs, read without a query.
  FOREACH layer IN ARRAY layers LOOP
    has_cps := has_cps OR jsonb_typeof(layer->'callsPerSecond') = 'number';
    has_spend := has_spend OR jsonb_typeof(layer->'dailySpendMicros') = 'string'
      OR jsonb_typeof(layer->'monthlySpendMicros') = 'string';
  END LOOP;
  t_now := clock_timestamp();
  IF has_cps THEN
    st := st || jsonb_build_object('cps', (SELECT count(*) FROM authorizations a
      WHERE a.billing_group_id = p_group AND a.created_at > t_now - interval '1 second'));
  END IF;
  FOREACH layer IN ARRAY layers LOOP
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
  IF has_spend THEN
    SELECT * INTO spent FROM settled_spend(p_group, grp.time_zone);
    st := st || jsonb_build_object('spentToday', spent.today::text, 'spentBefore', spent.before::text);
  END IF;
  RETURN st;
END;
$$;
