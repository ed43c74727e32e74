-- A principal caches its reach: its group and that group's subtree (lib/auth/find-key.ts). A new child account joins
-- the subtrees of its parent's principals, so its insert drops every process's principal cache, as a key's
-- revocation does (docs/contract.md §21). A root account joins no one's subtree: no notification.
CREATE TRIGGER billing_groups_notify_auth_child AFTER INSERT ON billing_groups
  FOR EACH ROW WHEN (NEW.parent_id IS NOT NULL) EXECUTE FUNCTION callbook_notify_auth_change();
