-- Limit hits (issue 31, docs/contract.md "Limits"): the limits of an account whose crossing has been told (a
-- `limit.hit` event, `fraud.rule_hit` for destination and velocity rules, and an audit event), so 50 refused calls in a
-- row tell it once. A refusal adds its limit with a conditional UPDATE in its own transaction, under the group's row
-- lock; the next authorization admitted empties the set (re-armed). The admitting path reads it with the lock.
ALTER TABLE "account_limits" ADD COLUMN "hit" text[] DEFAULT '{}' NOT NULL;
