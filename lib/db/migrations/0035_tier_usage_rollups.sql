-- Usage rollups by reseller tier (issue 32 item 6, docs/contract.md "Reseller tiers", "Usage by tier"): for each tier
-- (an account with children), the figures of its subtree's calls (every call with a call_tier_charges row of that
-- tier: counts, billed seconds, the calls' price), what the tier pays its parent for them (buy_cost_micros: its own
-- charges) and its margin (what its child on the path pays it minus that). Keyed like usage_hourly / usage_quarter /
-- usage_daily with the tier in place of the call's group, and without the call's group or supplier: a reseller's
-- 90-day report over 1 000 customers reads thousands of rows, not one per call. Kept exact as the usage rollups are
-- (0005): statement-level triggers with transition tables, one upsert of the grouped difference per statement in
-- key order, skipped while archiving (0023's switch) so archived and moved calls keep their tier's figures.
CREATE TABLE "tier_usage_hourly" (
	"tier_group_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"hangup_cause" text,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_usage_hourly_key" UNIQUE NULLS NOT DISTINCT("tier_group_id","hour","direction","hangup_cause","currency")
);
--> statement-breakpoint
CREATE TABLE "tier_usage_quarter" (
	"tier_group_id" text NOT NULL,
	"quarter" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"hangup_cause" text,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_usage_quarter_key" UNIQUE NULLS NOT DISTINCT("tier_group_id","quarter","direction","hangup_cause","currency")
);
--> statement-breakpoint
CREATE TABLE "tier_usage_daily" (
	"tier_group_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"matched_prefix" text,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_usage_daily_key" UNIQUE NULLS NOT DISTINCT("tier_group_id","day","direction","matched_prefix","currency")
);
--> statement-breakpoint
-- One change of a tier's figures: the tier, the call's start, dimensions and the differences.
CREATE TYPE tier_usage_delta AS (g text, st timestamptz, dir text, hc text, mp text, cur char(3), n bigint, a bigint,
  un bigint, bs bigint, p bigint, bc bigint, m bigint);
--> statement-breakpoint
-- The one writer of the three tier rollups: every trigger below hands it its differences. Buckets are UTC as 0005's.
CREATE FUNCTION tier_usage_apply(deltas tier_usage_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT g, date_trunc('hour', st, 'UTC') AS h, date_bin('15 minutes', st, timestamptz '2000-01-01 00:00:00+00') AS q,
      date_trunc('day', st, 'UTC') AS d, dir, hc, mp, cur, n, a, un, bs, p, bc, m
    FROM unnest(deltas)
  ), hourly AS (
    INSERT INTO tier_usage_hourly AS u (tier_group_id, hour, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, h, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT tier_usage_hourly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), quarter AS (
    INSERT INTO tier_usage_quarter AS u (tier_group_id, quarter, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, q, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, q, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, q, dir, hc, cur
    ON CONFLICT ON CONSTRAINT tier_usage_quarter_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO tier_usage_daily AS u (tier_group_id, day, direction, matched_prefix, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, cur
    ON CONFLICT ON CONSTRAINT tier_usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
END $$;
--> statement-breakpoint
-- New charges (ingest, rerate's missing tiers): the call's figures once per tier, the tier's charge, and its margin
-- over the child's charge (depth - 1, or the call's price at depth 1; a child row not there yet adds no margin, as the
-- per-call sum's NULL did).
CREATE FUNCTION tier_usage_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 1,
      (c.answer_time IS NOT NULL)::int, (NOT c.rated)::int, c.bill_duration, c.price_micros, t.price_micros,
      coalesce(CASE WHEN t.depth = 1 THEN c.price_micros
        ELSE (SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1) END - t.price_micros, 0))::tier_usage_delta
    FROM new_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A re-rated charge (rerate's upsert): its tier's cost and margin move by the difference, and the tier above it on the
-- path (depth + 1) gains the difference as margin (it sells to this tier).
CREATE FUNCTION tier_usage_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    WITH changed AS MATERIALIZED (
      SELECT t.billing_group_id, t.start_time, t.call_id, t.tier_group_id, t.depth, t.price_micros - o.price_micros AS diff
      FROM new_charges t JOIN old_charges o ON o.billing_group_id = t.billing_group_id AND o.start_time = t.start_time
        AND o.call_id = t.call_id AND o.tier_group_id = t.tier_group_id
      WHERE t.price_micros <> o.price_micros
    )
    SELECT ROW(x.tier, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 0, 0, 0, 0, 0,
      x.bc, x.m)::tier_usage_delta
    FROM (
      SELECT k.billing_group_id, k.start_time, k.call_id, k.tier_group_id AS tier, k.diff AS bc, -k.diff AS m FROM changed k
      UNION ALL
      SELECT k.billing_group_id, k.start_time, k.call_id, up.tier_group_id, 0, k.diff FROM changed k
      JOIN call_tier_charges up ON up.billing_group_id = k.billing_group_id AND up.start_time = k.start_time
        AND up.call_id = k.call_id AND up.depth = k.depth + 1
    ) x JOIN calls c ON c.billing_group_id = x.billing_group_id AND c.start_time = x.start_time AND c.id = x.call_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A deleted charge: archiveCalls and the history move (callbook.archiving on) leave the figures, as 0023's rollups;
-- any other delete takes back what its insert added (while its call is still there).
CREATE FUNCTION tier_usage_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('callbook.archiving', true) = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, -1,
      -(c.answer_time IS NOT NULL)::int, -(NOT c.rated)::int, -c.bill_duration, -c.price_micros, -t.price_micros,
      -coalesce(CASE WHEN t.depth = 1 THEN c.price_micros
        ELSE coalesce((SELECT s.price_micros FROM old_charges s WHERE s.billing_group_id = t.billing_group_id
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1),
          (SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1)) END - t.price_micros, 0))::tier_usage_delta
    FROM old_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION tier_usage_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE tier_usage_hourly, tier_usage_quarter, tier_usage_daily;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A re-rated call (rerate's UPDATE of calls): every tier with a charge on it sees the call's figures move (old out,
-- new in, by their own dimensions), and the depth-1 tier its margin by the price's difference (the call's price is
-- what its child pays it). A call without tier charges (a root account's) joins nothing.
CREATE FUNCTION tier_usage_on_calls_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, c.sign,
      c.sign * (c.answer_time IS NOT NULL)::int, c.sign * (NOT c.rated)::int, c.sign * c.bill_duration,
      c.sign * c.price_micros, 0, CASE WHEN t.depth = 1 THEN c.sign * c.price_micros ELSE 0 END)::tier_usage_delta
    FROM (SELECT n.*, 1 AS sign FROM new_calls n UNION ALL SELECT o.*, -1 AS sign FROM old_calls o) c
    JOIN call_tier_charges t ON t.billing_group_id = c.billing_group_id AND t.start_time = c.start_time AND t.call_id = c.id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER call_tier_charges_usage_insert AFTER INSERT ON call_tier_charges REFERENCING NEW TABLE AS new_charges
  FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_insert();
--> statement-breakpoint
CREATE TRIGGER call_tier_charges_usage_update AFTER UPDATE ON call_tier_charges REFERENCING OLD TABLE AS old_charges NEW TABLE AS new_charges
  FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_update();
--> statement-breakpoint
CREATE TRIGGER call_tier_charges_usage_delete AFTER DELETE ON call_tier_charges REFERENCING OLD TABLE AS old_charges
  FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_delete();
--> statement-breakpoint
CREATE TRIGGER call_tier_charges_usage_truncate AFTER TRUNCATE ON call_tier_charges
  FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_truncate();
--> statement-breakpoint
CREATE TRIGGER calls_tier_usage_update AFTER UPDATE ON calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION tier_usage_on_calls_update();
--> statement-breakpoint
-- Backfill from the charges stored before this migration (archived calls' charges are gone: not recoverable).
SELECT tier_usage_apply(ARRAY(
  SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 1,
    (c.answer_time IS NOT NULL)::int, (NOT c.rated)::int, c.bill_duration, c.price_micros, t.price_micros,
    coalesce(CASE WHEN t.depth = 1 THEN c.price_micros
      ELSE (SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
        AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1) END - t.price_micros, 0))::tier_usage_delta
  FROM call_tier_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id));
