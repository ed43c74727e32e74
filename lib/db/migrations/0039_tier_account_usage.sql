-- A reseller's report by account over its subtree (issue 32 item 6, Reports "by customer", docs/contract.md "Usage by
-- tier"): its buy cost and margin per descendant account by UTC hour, so whole hours are read here and only the
-- ragged ends per charge (lib/calls/usage-sums.ts). Counts, seconds and price per account are usage_hourly's already;
-- this holds only what the tier's charges add. Written by tier_usage_apply with the three tier rollups of 0035, from
-- the same differences (each now names the call's account). The call stays a plain join: a LATERAL probe per charge
-- measured 18 % slower three-tier ingest (bench/ingest-throughput.ts postgres 50000 1000 4 3, farm-bench A/B).
CREATE TABLE "tier_account_usage_hourly" (
	"tier_group_id" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"direction" text NOT NULL,
	"hangup_cause" text,
	"currency" char(3) NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_account_usage_hourly_key" UNIQUE NULLS NOT DISTINCT("tier_group_id","billing_group_id","hour","direction","hangup_cause","currency")
);
--> statement-breakpoint
-- A reseller's report by account over its whole subtree, no direction or cause asked (the Reports page's "by
-- customer"): one row per tier, account and UTC day with the counts, price, cost and margin together, so 1 000
-- customers of sparse traffic read one row per account and day (the hourly rows above are about one per call there),
-- and whole days come from here, the ragged ends per call and charge (lib/calls/usage-sums.ts, `rollupSource`).
CREATE TABLE "tier_account_usage_daily" (
	"tier_group_id" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_account_usage_daily_key" UNIQUE("tier_group_id","day","billing_group_id","currency")
);
--> statement-breakpoint
ALTER TYPE tier_usage_delta ADD ATTRIBUTE acct text;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_apply(deltas tier_usage_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT g, date_trunc('hour', st, 'UTC') AS h, date_bin('15 minutes', st, timestamptz '2000-01-01 00:00:00+00') AS q,
      date_trunc('day', st, 'UTC') AS d, dir, hc, mp, cur, n, a, un, bs, p, bc, m, acct
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
  ), by_account AS (
    INSERT INTO tier_account_usage_hourly AS u (tier_group_id, billing_group_id, hour, direction, hangup_cause, currency, buy_cost_micros, margin_micros)
    SELECT g, acct, h, dir, hc, cur, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, acct, h, dir, hc, cur
    HAVING sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, acct, h, dir, hc, cur
    ON CONFLICT ON CONSTRAINT tier_account_usage_hourly_key DO UPDATE SET buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), by_account_daily AS (
    INSERT INTO tier_account_usage_daily AS u (tier_group_id, day, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, acct, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, acct, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, acct, cur
    ON CONFLICT ON CONSTRAINT tier_account_usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO tier_usage_daily AS u (tier_group_id, day, direction, matched_prefix, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, cur
    ON CONFLICT ON CONSTRAINT tier_usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 1,
      (c.answer_time IS NOT NULL)::int, (NOT c.rated)::int, c.bill_duration, c.price_micros, t.price_micros,
      coalesce(CASE WHEN t.depth = 1 THEN c.price_micros
        ELSE (SELECT s.price_micros FROM call_tier_charges s WHERE s.billing_group_id = t.billing_group_id
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1) END - t.price_micros, 0),
      t.billing_group_id)::tier_usage_delta
    FROM new_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    WITH changed AS MATERIALIZED (
      SELECT t.billing_group_id, t.start_time, t.call_id, t.tier_group_id, t.depth, t.price_micros - o.price_micros AS diff
      FROM new_charges t JOIN old_charges o ON o.billing_group_id = t.billing_group_id AND o.start_time = t.start_time
        AND o.call_id = t.call_id AND o.tier_group_id = t.tier_group_id
      WHERE t.price_micros <> o.price_micros
    )
    SELECT ROW(x.tier, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 0, 0, 0, 0, 0,
      x.bc, x.m, c.billing_group_id)::tier_usage_delta
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
CREATE OR REPLACE FUNCTION tier_usage_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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
          AND s.start_time = t.start_time AND s.call_id = t.call_id AND s.depth = t.depth - 1)) END - t.price_micros, 0),
      c.billing_group_id)::tier_usage_delta
    FROM old_charges t JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_on_calls_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, c.sign,
      c.sign * (c.answer_time IS NOT NULL)::int, c.sign * (NOT c.rated)::int, c.sign * c.bill_duration,
      c.sign * c.price_micros, 0, CASE WHEN t.depth = 1 THEN c.sign * c.price_micros ELSE 0 END,
      c.billing_group_id)::tier_usage_delta
    FROM (SELECT n.*, 1 AS sign FROM new_calls n UNION ALL SELECT o.*, -1 AS sign FROM old_calls o) c
    JOIN call_tier_charges t ON t.billing_group_id = c.billing_group_id AND t.start_time = c.start_time AND t.call_id = c.id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE tier_usage_hourly, tier_usage_quarter, tier_usage_daily, tier_account_usage_hourly, tier_account_usage_daily;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Backfill by account from the charges stored now (archived and moved calls' charges are gone, as in 0035).
INSERT INTO tier_account_usage_hourly (tier_group_id, billing_group_id, hour, direction, hangup_cause, currency, buy_cost_micros, margin_micros)
  SELECT t.tier_group_id, c.billing_group_id, date_trunc('hour', c.start_time, 'UTC'), c.direction, upper(c.hangup_cause), c.currency,
    sum(t.price_micros), sum(coalesce(CASE WHEN t.depth = 1 THEN c.price_micros ELSE s.price_micros END - t.price_micros, 0))
  FROM call_tier_charges t
  JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id
  LEFT JOIN call_tier_charges s ON s.billing_group_id = t.billing_group_id AND s.start_time = t.start_time
    AND s.call_id = t.call_id AND s.depth = t.depth - 1
  GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
INSERT INTO tier_account_usage_daily (tier_group_id, day, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
  SELECT t.tier_group_id, date_trunc('day', c.start_time, 'UTC'), c.billing_group_id, c.currency, count(*),
    count(c.answer_time), count(*) FILTER (WHERE NOT c.rated), sum(c.bill_duration), sum(c.price_micros), sum(t.price_micros),
    sum(coalesce(CASE WHEN t.depth = 1 THEN c.price_micros ELSE s.price_micros END - t.price_micros, 0))
  FROM call_tier_charges t
  JOIN calls c ON c.billing_group_id = t.billing_group_id AND c.start_time = t.start_time AND c.id = t.call_id
  LEFT JOIN call_tier_charges s ON s.billing_group_id = t.billing_group_id AND s.start_time = t.start_time
    AND s.call_id = t.call_id AND s.depth = t.depth - 1
  GROUP BY 1, 2, 3, 4;
