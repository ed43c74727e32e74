CREATE TABLE "usage_rollup" (
	"billing_group_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"hangup_cause" text,
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
	CONSTRAINT "usage_rollup_key" UNIQUE NULLS NOT DISTINCT("billing_group_id","hour","direction","hangup_cause","matched_prefix","supplier_id","currency")
);
--> statement-breakpoint
CREATE INDEX "usage_rollup_hour_idx" ON "usage_rollup" USING btree ("hour");--> statement-breakpoint
-- Usage rollup maintenance (GET /v1/usage). Statement-level triggers with transition tables: one grouped upsert
-- per INSERT, UPDATE (re-rating) or DELETE statement on calls, inside that statement's transaction, so the rollup
-- is always exact and the ingest code stays unaware of it. Rows are upserted in key order, so two transactions that
-- touch the same rollup rows lock them in the same order and cannot deadlock on them. Groups whose figures net to
-- zero (an UPDATE of other columns) are skipped and take no row lock. Hours are UTC (date_trunc's zone argument,
-- independent of the session's TimeZone).
CREATE FUNCTION usage_rollup_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO usage_rollup AS u (billing_group_id, hour, direction, hangup_cause, matched_prefix, supplier_id, currency,
      calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, d, hc, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint,
      sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint
    FROM (SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h, direction AS d,
        upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
        1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
        price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
        CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
      FROM new_calls) AS delta
    GROUP BY g, h, d, hc, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, d, hc, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_rollup_key DO UPDATE SET
      calls = u.calls + EXCLUDED.calls,
      answered_calls = u.answered_calls + EXCLUDED.answered_calls,
      unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls,
      billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds,
      price_micros = u.price_micros + EXCLUDED.price_micros,
      buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros,
      margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollup_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO usage_rollup AS u (billing_group_id, hour, direction, hangup_cause, matched_prefix, supplier_id, currency,
      calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, d, hc, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint,
      sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint
    FROM (SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h, direction AS d,
        upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
        1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
        price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
        CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
      FROM new_calls
      UNION ALL
      SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h, direction AS d,
        upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
        -1 AS n, -(answer_time IS NOT NULL)::int AS a, -(NOT rated)::int AS un, -bill_duration::bigint AS bs,
        -price_micros AS p, -coalesce(buy_cost_micros, 0) AS bc,
        -CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
      FROM old_calls) AS delta
    GROUP BY g, h, d, hc, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, d, hc, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_rollup_key DO UPDATE SET
      calls = u.calls + EXCLUDED.calls,
      answered_calls = u.answered_calls + EXCLUDED.answered_calls,
      unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls,
      billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds,
      price_micros = u.price_micros + EXCLUDED.price_micros,
      buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros,
      margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollup_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO usage_rollup AS u (billing_group_id, hour, direction, hangup_cause, matched_prefix, supplier_id, currency,
      calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, h, d, hc, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint,
      sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint
    FROM (SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h, direction AS d,
        upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
        -1 AS n, -(answer_time IS NOT NULL)::int AS a, -(NOT rated)::int AS un, -bill_duration::bigint AS bs,
        -price_micros AS p, -coalesce(buy_cost_micros, 0) AS bc,
        -CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
      FROM old_calls) AS delta
    GROUP BY g, h, d, hc, mp, s, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, h, d, hc, mp, s, cur
    ON CONFLICT ON CONSTRAINT usage_rollup_key DO UPDATE SET
      calls = u.calls + EXCLUDED.calls,
      answered_calls = u.answered_calls + EXCLUDED.answered_calls,
      unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls,
      billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds,
      price_micros = u.price_micros + EXCLUDED.price_micros,
      buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros,
      margin_micros = u.margin_micros + EXCLUDED.margin_micros;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_rollup_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE usage_rollup;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollup_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_on_insert();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollup_update AFTER UPDATE ON calls REFERENCING OLD TABLE AS old_calls NEW TABLE AS new_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_on_update();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollup_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS old_calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_on_delete();
--> statement-breakpoint
CREATE TRIGGER calls_usage_rollup_truncate AFTER TRUNCATE ON calls
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_on_truncate();
--> statement-breakpoint
-- Backfill from the calls stored before this migration.
INSERT INTO usage_rollup AS u (billing_group_id, hour, direction, hangup_cause, matched_prefix, supplier_id, currency,
  calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
SELECT g, h, d, hc, mp, s, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint,
  sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint
FROM (SELECT billing_group_id AS g, date_trunc('hour', start_time, 'UTC') AS h, direction AS d,
    upper(hangup_cause) AS hc, matched_prefix AS mp, supplier_id AS s, currency AS cur,
    1 AS n, (answer_time IS NOT NULL)::int AS a, (NOT rated)::int AS un, bill_duration::bigint AS bs,
    price_micros AS p, coalesce(buy_cost_micros, 0) AS bc,
    CASE WHEN buy_cost_micros IS NULL THEN 0 ELSE price_micros - buy_cost_micros END AS m
  FROM calls) AS delta
GROUP BY g, h, d, hc, mp, s, cur
HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
ORDER BY g, h, d, hc, mp, s, cur
ON CONFLICT ON CONSTRAINT usage_rollup_key DO UPDATE SET
  calls = u.calls + EXCLUDED.calls,
  answered_calls = u.answered_calls + EXCLUDED.answered_calls,
  unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls,
  billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds,
  price_micros = u.price_micros + EXCLUDED.price_micros,
  buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros,
  margin_micros = u.margin_micros + EXCLUDED.margin_micros;
