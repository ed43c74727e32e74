-- Archiving calls (docs/contract.md "Archiving calls"): calls leave the hot table without changing what was billed.
-- The DELETE of lib/calls/archive-calls.ts runs in a transaction that set callbook.archiving to 'on' (set_config(...,
-- true): that transaction only, on PostgreSQL and PGlite alike, no table lock or ownership needed as ALTER TABLE ...
-- DISABLE TRIGGER would). The two triggers that a DELETE of calls fires return at once in it: the usage rollups keep
-- counting the archived calls (the usage totals and every invoice's lines stay as issued) and no invoice recheck is
-- marked (no credit note for calls that were not taken back, only moved). Any other DELETE behaves as before: a call
-- deleted outside an archive is taken back (rollups shrink, its closed period is rechecked). Bodies as in 0005 and 0021
-- but for the first statement.
CREATE OR REPLACE FUNCTION usage_rollups_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- archiveCalls (lib/calls/archive-calls.ts): calls leave the hot table, what they counted stays.
  IF current_setting('callbook.archiving', true) = 'on' THEN
    RETURN NULL;
  END IF;
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
CREATE OR REPLACE FUNCTION invoices_mark_changed_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- archiveCalls (lib/calls/archive-calls.ts): removing archived calls changes no billed period, so nothing is rechecked.
  IF TG_OP = 'DELETE' AND current_setting('callbook.archiving', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO invoice_recheck_marks (billing_group_id, day)
  SELECT DISTINCT c.billing_group_id, date_trunc('day', c.start_time, 'UTC')
  FROM changed_calls c
  JOIN (
    SELECT g.id, greatest(date_trunc('month', now(), g.time_zone), u.period_end) AS bound
    FROM billing_groups g LEFT JOIN invoiced_until u ON u.billing_group_id = g.id
    WHERE g.id IN (SELECT DISTINCT billing_group_id FROM changed_calls)
  ) b ON b.id = c.billing_group_id
  WHERE c.start_time < b.bound
  ORDER BY 1, 2;
  RETURN NULL;
END $$;
