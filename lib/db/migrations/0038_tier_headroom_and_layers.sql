-- tier_held (0034) in plpgsql, its body unchanged (why: tier_headroom below, which calls it for every ancestor).
CREATE OR REPLACE FUNCTION tier_held(p_tier text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(h.reserved_micros), 0)::bigint FROM authorization_tier_holds h
    WHERE h.tier_group_id = p_tier AND h.expires_at > now());
END $$;
--> statement-breakpoint
-- A tier's headroom in one place (issue 32 item 4, docs/contract.md "Reseller tiers"): balance + credit limit, less its
-- own open reservations and its subtree's open holds at it. Authorization reads it for every ancestor (ancestor_tiers)
-- and a reseller's top-up or adjustment of a customer pays only out of it (lib/billing/ledger.ts moveBalances
-- `withinHeadroom`), so money already promised to calls in flight is never given away. The balance and credit limit
-- are the caller's (the row an UPDATE re-reads under concurrency), the reservations read here.
-- plpgsql, not sql: a sql function with sub-selects is neither inlined nor keeps its plans, so authorization planned
-- these reads again for every ancestor (bench/authorize-profile.ts twoTiersUp); plpgsql plans them once a session.
CREATE FUNCTION tier_headroom(p_tier text, p_balance bigint, p_credit bigint) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN p_balance + p_credit
    - (SELECT coalesce(sum(a.reserved_micros), 0) FROM authorizations a
        WHERE a.billing_group_id = p_tier AND a.settled_at IS NULL AND a.expires_at > now())::bigint
    - tier_held(p_tier);
END $$;
--> statement-breakpoint
-- ancestor_tiers (0034) re-created on tier_headroom; the rest is unchanged.
CREATE OR REPLACE FUNCTION ancestor_tiers(p_parent text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  WITH RECURSIVE up AS (
    SELECT p.id, p.parent_id, 1 AS depth FROM billing_groups p WHERE p.id = p_parent
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM billing_groups p JOIN up ON p.id = up.parent_id
  ), t AS (
    SELECT up.id, up.depth, g.rate_card_version, g.disabled_by_operator, g.balance_micros, g.credit_limit_micros,
           tier_headroom(up.id, g.balance_micros, g.credit_limit_micros) AS headroom
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
-- The tier locks of these accounts (0034's transaction-level advisory locks, key 727300 and the id's hash), in the
-- order of their keys so no two holders wait on each other in a circle. One definition for whoever reserves against
-- a tier's headroom (authorize_state) and whoever pays out of it (lib/billing/tier-lock.ts, a reseller's top-up).
CREATE FUNCTION lock_tiers(p_ids text[]) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT count(pg_advisory_xact_lock(727300, k)) FROM (
    SELECT DISTINCT hashtext(x.id) AS k FROM unnest(p_ids) AS x(id) ORDER BY k) keys
$$;
--> statement-breakpoint
-- A layer of limits per setter (issue 32 item 4, docs/contract.md "Limits", "Reseller tiers"): the operator's (the
-- platform), the provider's (the account's parent reseller) and the customer's own. Before, a reseller wrote its
-- customer's operator layer, and so could overwrite the operator's. Layers written so far stay where they are.
ALTER TABLE account_limits ADD COLUMN provider jsonb NOT NULL DEFAULT '{}'::jsonb;
--> statement-breakpoint
-- authorize_state (0032-0034) re-created: it answers the provider's layer too and counts the windows of its rules, in
-- the order operator, provider, customer (lib/limits/layers.ts effectiveLimits); the rest is unchanged.
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
  PERFORM lock_tiers(ARRAY(
    WITH RECURSIVE up AS (
      SELECT g.id, g.parent_id FROM billing_groups g WHERE g.id = p_group
      UNION ALL
      SELECT p.id, p.parent_id FROM billing_groups p JOIN up ON p.id = up.parent_id
    ) SELECT up.id FROM up));
  SELECT g.balance_micros, g.credit_limit_micros, g.disabled, g.rate_card_version, g.time_zone, g.parent_id,
         l.operator, l.provider, l.customer, coalesce(cardinality(l.hit) > 0, false) AS hit
    INTO grp
    FROM billing_groups g LEFT JOIN account_limits l ON l.billing_group_id = g.id
    WHERE g.id = p_group FOR UPDATE OF g;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  st := jsonb_build_object(
    'balance', grp.balance_micros::text, 'creditLimit', grp.credit_limit_micros::text, 'disabled', grp.disabled,
    'version', grp.rate_card_version, 'timeZone', grp.time_zone, 'limitsHit', grp.hit,
    'operator', grp.operator, 'provider', grp.provider, 'customer', grp.customer,
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
  IF jsonb_typeof(grp.operator->'callsPerSecond') = 'number' OR jsonb_typeof(grp.provider->'callsPerSecond') = 'number'
     OR jsonb_typeof(grp.customer->'callsPerSecond') = 'number' THEN
    st := st || jsonb_build_object('cps', (SELECT count(*) FROM authorizations a
      WHERE a.billing_group_id = p_group AND a.created_at > t_now - interval '1 second'));
  END IF;
  FOREACH layer IN ARRAY ARRAY[grp.operator, grp.provider, grp.customer] LOOP
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
  IF jsonb_typeof(grp.operator->'dailySpendMicros') = 'string' OR jsonb_typeof(grp.provider->'dailySpendMicros') = 'string'
     OR jsonb_typeof(grp.customer->'dailySpendMicros') = 'string'
     OR jsonb_typeof(grp.operator->'monthlySpendMicros') = 'string' OR jsonb_typeof(grp.provider->'monthlySpendMicros') = 'string'
     OR jsonb_typeof(grp.customer->'monthlySpendMicros') = 'string' THEN
    SELECT * INTO spent FROM settled_spend(p_group, grp.time_zone);
    st := st || jsonb_build_object('spentToday', spent.today::text, 'spentBefore', spent.before::text);
  END IF;
  RETURN st;
END;
$$;
