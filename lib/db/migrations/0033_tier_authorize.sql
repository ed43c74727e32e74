-- Reseller tiers at authorization (issue 32 items 2 and 4, docs/contract.md "Reseller tiers" and §22): authorize_state
-- also answers which ancestors of the account block its calls (disabled, or no headroom), in the same round trip.
-- Root accounts pay nothing: the walk runs only when the locked row has a parent.
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
  -- Ancestors that block the account's calls, nearest first: disabled (by the operator or by their credit limit), or
  -- no headroom once their own open reservations count. Read without their locks (ingest's moveBalances locks in id
  -- order, and a child's id may sort before its parent's): a refusal check, exact to the last committed state. A root
  -- account skips this (no parent: no walk).
  IF grp.parent_id IS NOT NULL THEN
    st := st || jsonb_build_object('blockedBy', (
      WITH RECURSIVE up AS (
        SELECT p.id, p.parent_id, 1 AS depth FROM billing_groups p WHERE p.id = grp.parent_id
        UNION ALL
        SELECT p.id, p.parent_id, up.depth + 1 FROM billing_groups p JOIN up ON p.id = up.parent_id
      )
      SELECT coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'reason', t.reason) ORDER BY t.depth), '[]'::jsonb)
      FROM (
        SELECT up.id, up.depth,
               CASE WHEN g.disabled_by_operator THEN 'operator'
                    WHEN g.balance_micros <= -g.credit_limit_micros THEN 'credit_limit'
                    WHEN g.balance_micros + g.credit_limit_micros <= (SELECT coalesce(sum(a.reserved_micros), 0)
                      FROM authorizations a
                      WHERE a.billing_group_id = up.id AND a.settled_at IS NULL AND a.expires_at > now())
                      THEN 'reserved' END AS reason
        FROM up JOIN billing_groups g ON g.id = up.id
      ) t WHERE t.reason IS NOT NULL));
  END IF;
  SELECT count(*) AS n, coalesce(sum(a.reserved_micros), 0)::text AS total INTO act
    FROM authorizations a WHERE a.billing_group_id = p_group AND a.settled_at IS NULL AND a.expires_at > now();
  st := st || jsonb_build_object('activeCount', act.n, 'activeMicros', act.total);
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
