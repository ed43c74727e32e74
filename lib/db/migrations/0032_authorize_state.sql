-- An authorization's reads in one round trip (issue 31 item 5, docs/contract.md §22 "Cost"): POST /v1/authorizations
-- sent 8 statements under the group's row lock with every rule on, each a round trip while every other authorization
-- of the account waits. authorize_state takes the lock and reads what the checks need in one call; being VOLATILE,
-- each of its statements takes a new snapshot, so what it reads after the lock includes everything committed by the
-- authorizations and ingests that held the lock before (a subquery of the locking statement itself would read the
-- snapshot taken before the wait). The decisions stay in TypeScript (lib/limits/enforce.ts), which then writes the
-- authorization, or the refusal, in one more statement.
-- Spend per day and per month in the account's time zone, settled by CDRs, from the usage rollups (lib/limits/enforce.ts
-- settledSpend): today from usage_quarter (a local midnight falls on a quarter in every zone), the month's earlier days
-- from usage_hourly for whole hours and usage_quarter for the hour a :30 or :45 zone's month start or today's start cuts.
CREATE FUNCTION settled_spend(p_group text, p_zone text) RETURNS TABLE (today numeric, before numeric) LANGUAGE sql STABLE AS $$
  WITH b AS MATERIALIZED (
    SELECT date_trunc('month', now(), p_zone) AS m, date_trunc('day', now(), p_zone) AS d
  ), h AS MATERIALIZED (
    SELECT m, d, date_trunc('hour', m) + CASE WHEN date_trunc('hour', m) < m THEN interval '1 hour' ELSE interval '0' END AS m_up,
           date_trunc('hour', d) AS d_down
    FROM b
  )
  SELECT
    (SELECT coalesce(sum(q.price_micros), 0) FROM usage_quarter q, h
      WHERE q.billing_group_id = p_group AND q.quarter >= h.d) AS today,
    (SELECT CASE WHEN h.d = h.m THEN 0 ELSE
      (SELECT coalesce(sum(u.price_micros), 0) FROM usage_hourly u
        WHERE u.billing_group_id = p_group AND u.hour >= h.m_up AND u.hour < h.d_down)
      + (SELECT coalesce(sum(q.price_micros), 0) FROM usage_quarter q
        WHERE q.billing_group_id = p_group
          AND ((q.quarter >= h.m AND q.quarter < h.m_up) OR (q.quarter >= h.d_down AND q.quarter < h.d)))
     END FROM h) AS before
$$;
--> statement-breakpoint
-- Locks the group's row (FOR UPDATE, as every writer of its balance, authorizations and counters does) and answers, as
-- one JSON object: the group and its two limit layers; whether the uuid is authorized already or its call stored; the
-- active reservations (count, sum); then only for the rules that are on in a layer: the authorizations of the last
-- second (calls per second), per distinct-destinations rule (operator's first) the destinations seen in its window,
-- counted no further than its max + 1, and whether this one is among them, per calls-per-prefix rule the calls of its
-- window for every prefix of the digits (the caller keeps its rate's), and the settled spend. Velocity counters older
-- than the longest window are deleted as they are met. Windows end at clock_timestamp() read after the lock. Null: no
-- such group.
CREATE FUNCTION authorize_state(p_group text, p_uuid text, p_digits text) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
  SELECT g.balance_micros, g.credit_limit_micros, g.disabled, g.rate_card_version, g.time_zone,
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
