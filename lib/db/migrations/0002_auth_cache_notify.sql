-- Cache invalidation for API principals (lib/auth/principal-cache.ts): every process that caches
-- principals LISTENs on callbook_auth and drops its cache when a key is revoked or deleted, or when a
-- group's rate card version (which a principal carries) changes, whichever process made the change.
CREATE OR REPLACE FUNCTION callbook_notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('callbook_auth', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_notify_auth AFTER UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER billing_groups_notify_auth AFTER UPDATE OF rate_card_version OR DELETE ON billing_groups
  FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change();
