-- A reseller's report by account over its whole subtree reads one row per account and whole UTC month, then per whole
-- week, and per day only the days around them (lib/calls/usage-sums.ts, `accountSubtreeParts`): a 90-day report over
-- 1 000 customers read about 57 000 rows of tier_account_usage_daily (one per account and day with calls), now about
-- 7 000. Weeks are UTC, Monday to Monday (date_bin from Monday 2000-01-03), months UTC calendar months. Written by
-- tier_usage_apply from the same differences as the daily rows; backfilled from them.
CREATE TABLE "tier_account_usage_monthly" (
	"tier_group_id" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"month" timestamp with time zone NOT NULL,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_account_usage_monthly_key" UNIQUE("tier_group_id","month","billing_group_id","currency")
);
--> statement-breakpoint
CREATE TABLE "tier_account_usage_weekly" (
	"tier_group_id" text NOT NULL,
	"billing_group_id" text NOT NULL,
	"week" timestamp with time zone NOT NULL,
	"currency" char(3) NOT NULL,
	"calls" bigint NOT NULL,
	"answered_calls" bigint NOT NULL,
	"unrated_calls" bigint NOT NULL,
	"billed_seconds" bigint NOT NULL,
	"price_micros" bigint NOT NULL,
	"buy_cost_micros" bigint NOT NULL,
	"margin_micros" bigint NOT NULL,
	CONSTRAINT "tier_account_usage_weekly_key" UNIQUE("tier_group_id","week","billing_group_id","currency")
);
--> statement-breakpoint
-- tier_usage_apply (0039) re-created whole: two more upserts, by_account_weekly and by_account_monthly; the rest
-- unchanged.
CREATE OR REPLACE FUNCTION tier_usage_apply(deltas tier_usage_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH delta AS MATERIALIZED (
    SELECT g, date_trunc('hour', st, 'UTC') AS h, date_bin('15 minutes', st, timestamptz '2000-01-01 00:00:00+00') AS q,
      date_trunc('day', st, 'UTC') AS d,
      date_bin('7 days', st, timestamptz '2000-01-03 00:00:00+00') AS w, date_trunc('month', st, 'UTC') AS mo, dir, hc, mp, cur, n, a, un, bs, p, bc, m, acct
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
  ), by_account_weekly AS (
    INSERT INTO tier_account_usage_weekly AS u (tier_group_id, week, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, w, acct, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, w, acct, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, w, acct, cur
    ON CONFLICT ON CONSTRAINT tier_account_usage_weekly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  ), by_account_monthly AS (
    INSERT INTO tier_account_usage_monthly AS u (tier_group_id, month, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, mo, acct, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, mo, acct, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, mo, acct, cur
    ON CONFLICT ON CONSTRAINT tier_account_usage_monthly_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros
    RETURNING 1
  )
  INSERT INTO tier_usage_daily AS u (tier_group_id, day, direction, matched_prefix, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
    SELECT g, d, dir, mp, cur, sum(n)::bigint, sum(a)::bigint, sum(un)::bigint, sum(bs)::bigint, sum(p)::bigint, sum(bc)::bigint, sum(m)::bigint FROM delta GROUP BY g, d, dir, mp, cur
    HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(un) <> 0 OR sum(bs) <> 0 OR sum(p) <> 0 OR sum(bc) <> 0 OR sum(m) <> 0
    ORDER BY g, d, dir, mp, cur
    ON CONFLICT ON CONSTRAINT tier_usage_daily_key DO UPDATE SET calls = u.calls + EXCLUDED.calls, answered_calls = u.answered_calls + EXCLUDED.answered_calls, unrated_calls = u.unrated_calls + EXCLUDED.unrated_calls, billed_seconds = u.billed_seconds + EXCLUDED.billed_seconds, price_micros = u.price_micros + EXCLUDED.price_micros, buy_cost_micros = u.buy_cost_micros + EXCLUDED.buy_cost_micros, margin_micros = u.margin_micros + EXCLUDED.margin_micros;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tier_usage_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE tier_usage_hourly, tier_usage_quarter, tier_usage_daily, tier_account_usage_hourly, tier_account_usage_daily,
    tier_account_usage_weekly, tier_account_usage_monthly;
  RETURN NULL;
END $$;
--> statement-breakpoint
INSERT INTO tier_account_usage_weekly (tier_group_id, week, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
  SELECT tier_group_id, date_bin('7 days', day, timestamptz '2000-01-03 00:00:00+00'), billing_group_id, currency, sum(calls),
    sum(answered_calls), sum(unrated_calls), sum(billed_seconds), sum(price_micros), sum(buy_cost_micros), sum(margin_micros)
  FROM tier_account_usage_daily
  GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO tier_account_usage_monthly (tier_group_id, month, billing_group_id, currency, calls, answered_calls, unrated_calls, billed_seconds, price_micros, buy_cost_micros, margin_micros)
  SELECT tier_group_id, date_trunc('month', day, 'UTC'), billing_group_id, currency, sum(calls),
    sum(answered_calls), sum(unrated_calls), sum(billed_seconds), sum(price_micros), sum(buy_cost_micros), sum(margin_micros)
  FROM tier_account_usage_daily
  GROUP BY 1, 2, 3, 4;
