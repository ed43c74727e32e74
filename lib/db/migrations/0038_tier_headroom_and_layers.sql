-- A tier's headroom in one place (issue 32 item 4, docs/contract.md "Reseller tiers"): balance + credit limit, less its
-- own open reservations and its subtree's open holds at it. Authorization reads it for every ancestor (ancestor_tiers)
-- and a reseller's top-up or adjustment of a customer pays only out of it (lib/billing/ledger.ts moveBalances
-- `withinHeadroom`), so money already promised to calls in flight is never given away. The balance and credit limit
-- are the caller's (the row an UPDATE re-reads under concurrency), the reservations read here.
CREATE FUNCTION tier_headroom(p_tier text, p_balance bigint, p_credit bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT p_balance + p_credit
    - (SELECT coalesce(sum(a.reserved_micros), 0) FROM authorizations a
        WHERE a.billing_group_id = p_tier AND a.settled_at IS NULL AND a.expires_at > now())::bigint
    - tier_held(p_tier)
$$;
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
