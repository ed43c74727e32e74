-- Tier rollups at ingest speed (issue 32 item 6, docs/contract.md "Usage by tier"). 0035's insert trigger looked up
-- each new charge's call in calls: with a transition table (no statistics) the planner hashed the whole month's
-- partition for every batch (a scan growing with the month), and read each child's charge back by a subquery.
-- Ingest now hands its tier figures to tier_usage_apply from its own statement (it has the calls and all their tiers
-- in hand) and says so with callbook.tier_usage = 'written' (transaction-local), which the trigger consumes: that
-- statement's charges are not counted twice, and the next statement's are counted again. Every other insert of
-- charges (rerate's missing tiers) is counted here as before, each call read by its key (one index probe, not a scan)
-- and the child's charge taken from the same statement's rows before the stored ones.
CREATE OR REPLACE FUNCTION tier_usage_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('callbook.tier_usage', true) = 'written' THEN
    PERFORM set_config('callbook.tier_usage', '', true);
    RETURN NULL;
  END IF;
  PERFORM tier_usage_apply(ARRAY(
    SELECT ROW(t.tier_group_id, c.start_time, c.direction, upper(c.hangup_cause), c.matched_prefix, c.currency, 1,
      (c.answer_time IS NOT NULL)::int, (NOT c.rated)::int, c.bill_duration, c.price_micros, t.price_micros,
      coalesce(CASE WHEN t.depth = 1 THEN c.price_micros
        ELSE coalesce(s.price_micros, (SELECT x.price_micros FROM call_tier_charges x WHERE x.billing_group_id = t.billing_group_id
          AND x.start_time = t.start_time AND x.call_id = t.call_id AND x.depth = t.depth - 1)) END - t.price_micros, 0))::tier_usage_delta
    FROM new_charges t
    LEFT JOIN new_charges s ON s.billing_group_id = t.billing_group_id AND s.start_time = t.start_time
      AND s.call_id = t.call_id AND s.depth = t.depth - 1
    -- OFFSET 0 keeps the lookup a per-charge probe of the call's partition by its key.
    CROSS JOIN LATERAL (SELECT * FROM calls k WHERE k.billing_group_id = t.billing_group_id AND k.start_time = t.start_time
      AND k.id = t.call_id OFFSET 0) c));
  RETURN NULL;
END $$;
