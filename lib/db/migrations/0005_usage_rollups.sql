CREATE TABLE "usage_daily" (
	"billing_group_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"matched_prefix" text,
	"supplier_id" text,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "usage_daily_key" UNIQUE NULLS NOT DISTINCT("billing_group_id","day","direction","matched_prefix","supplier_id","currency")
);
--> statement-breakpoint
CREATE TABLE "usage_hourly" (
	"billing_group_id" text NOT NULL,
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
	CONSTRAINT "usage_hourly_key" UNIQUE NULLS NOT DISTINCT("billing_group_id","hour","direction","hangup_cause","currency")
);
--> statement-breakpoint
CREATE TABLE "usage_quarter" (
	"billing_group_id" text NOT NULL,
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
	CONSTRAINT "usage_quarter_key" UNIQUE NULLS NOT DISTINCT("billing_group_id","quarter","direction","hangup_cause","currency")
);
--> statement-breakpoint
DROP TABLE "usage_rollup" CASCADE;--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");--> statement-breakpoint
CREATE INDEX "usage_hourly_hour_idx" ON "usage_hourly" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "usage_quarter_quarter_idx" ON "usage_quarter" USING btree ("quarter");--> statement-breakpoint
-- Three grains replace 0004's single hourly table, which held nearly one row per call with realistic traffic
-- (472k rows for 1M calls over 90 days with 60 destinations) and so was no faster than calls.
DROP TRIGGER IF EXISTS calls_usage_rollup_insert ON calls;
--> statement-breakpoint
DROP TRIGGER IF EXISTS calls_usage_rollup_update ON calls;
--> statement-breakpoint
DROP TRIGGER IF EXISTS calls_usage_rollup_delete ON calls;
--> statement-breakpoint
DROP TRIGGER IF EXISTS calls_usage_rollup_truncate ON calls;
--> statement-breakpoint
DROP FUNCTION IF EXISTS usage_rollup_on_insert(), usage_rollup_on_update(), usage_rollup_on_delete(), usage_rollup_on_truncate();
--> statement-breakpoint
-- Usage rollup maintenance (GET /v1/usage). Statement-level triggers with transition tables: per INSERT, UPDATE
-- (re-rating) or DELETE statement on calls, one statement upserts the grouped change into the three rollups,
-- inside that statement's transaction: the rollups are always exact, and ingest code stays unaware of them.
-- Rows are upserted in key order, so two transactions touching the same rollup rows lock them in the same
-- order and cannot deadlock on them. Groups whose figures net to zero (an UPDATE of other columns) are skipped
-- and take no row lock. Buckets are UTC (date_trunc's zone argument; date_bin from a UTC origin), whatever the
-- session's TimeZone.
CREATE FUNCTION usage_rollups_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h,
      date_bin('15 minutes', start_time, timestamptz '2000-01-01 00:00:00+00') AS q, date_trunc('day', start_time, 'UTC') AS d,
      direction AS dir, upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
      1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
      price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
      CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
    FROM new_calls
  ), hourly AS (
    INSERT INTO usage_hourly AS u (billing_group_id, hour, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, h, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_hourly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), quarter AS (
    INSERT INTO usage_quarter AS u (billing_group_id, quarter, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, q, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, q, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, q, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_quarter_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO usage_daily AS u (billing_group_id, day, direction, matched_prefix, supplier_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollups_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h,
      date_bin('15 minutes', start_time, timestamptz '2000-01-01 00:00:00+00') AS q, date_trunc('day', start_time, 'UTC') AS d,
      direction AS dir, upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
      1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
      price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
      CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
    FROM new_calls
    UNION ALL
    SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h,
      date_bin('15 minutes', start_time, timestamptz '2000-01-01 00:00:00+00') AS q, date_trunc('day', start_time, 'UTC') AS d,
      direction AS dir, upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
      -1 AS n, -(answer_time IS NOT NULL)::int AS a, -(NOT rated)::int AS un, -bill_duration::bigint AS bs,
      -price_micros AS p, -coalesce(buy_cost_micros, 0) AS bc,
      -CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
    FROM old_calls
  ), hourly AS (
    INSERT INTO usage_hourly AS u (billing_group_id, hour, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, h, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_hourly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), quarter AS (
    INSERT INTO usage_quarter AS u (billing_group_id, quarter, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, q, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, q, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, q, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_quarter_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO usage_daily AS u (billing_group_id, day, direction, matched_prefix, supplier_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollups_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h,
      date_bin('15 minutes', start_time, timestamptz '2000-01-01 00:00:00+00') AS q, date_trunc('day', start_time, 'UTC') AS d,
      direction AS dir, upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
      -1 AS n, -(answer_time IS NOT NULL)::int AS a, -(NOT rated)::int AS un, -bill_duration::bigint AS bs,
      -price_micros AS p, -coalesce(buy_cost_micros, 0) AS bc,
      -CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
    FROM old_calls
  ), hourly AS (
    INSERT INTO usage_hourly AS u (billing_group_id, hour, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, h, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_hourly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), quarter AS (
    INSERT INTO usage_quarter AS u (billing_group_id, quarter, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, q, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, q, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, q, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_quarter_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO usage_daily AS u (billing_group_id, day, direction, matched_prefix, supplier_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollups_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE usage_hourly, usage_quarter, usage_daily;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_insert();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_update AFTER UPDATE ON calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_update();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS old_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_delete();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollups_truncate AFTER TRUNCATE ON calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_on_truncate();
--> statement-breakpoint
-- Backfill from the calls stored before this migration.
WITH delta AS MATERIALIZED (
    SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h,
      date_bin('15 minutes', start_time, timestamptz '2000-01-01 00:00:00+00') AS q, date_trunc('day', start_time, 'UTC') AS d,
      direction AS dir, upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
      1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
      price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
      CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
    FROM calls
  ), hourly AS (
    INSERT INTO usage_hourly AS u (billing_group_id, hour, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, h, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_hourly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), quarter AS (
    INSERT INTO usage_quarter AS u (billing_group_id, quarter, direction, hangup_cause, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, q, dir, hc, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, q, dir, hc, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, q, dir, hc, cur
    ON CONFLICT ON CONSTRAINT usage_quarter_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO usage_daily AS u (billing_group_id, day, direction, matched_prefix, supplier_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
