import type { TriggerDeclaration } from "@/lib/db/triggers";

// Principal cache invalidation (lib/auth/principal-cache.ts): every process that caches principals LISTENs on
// callbook_auth, and these statement-level triggers NOTIFY it (payload: the table) when a key is revoked or deleted,
// a portal session ends or is deleted, a person's session, membership or role changes, or a group's rate card version or cost roles (which a principal carries) changes or the
// group is deleted or gets a child account (a reseller's reach, its subtree), whichever process made the change. SQL in migrations 0002 and 0003 (lib/db/triggers.test.ts).

const notify = { name: "callbook_notify_auth_change", migration: "0002_auth_cache_notify.sql" };

export const AUTH_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "api_keys_notify_auth",
    table: "api_keys",
    definition:
      "CREATE TRIGGER api_keys_notify_auth AFTER DELETE OR UPDATE ON public.api_keys FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0002_auth_cache_notify.sql",
    functions: [notify],
  },
  {
    name: "billing_groups_notify_auth",
    table: "billing_groups",
    definition:
      "CREATE TRIGGER billing_groups_notify_auth AFTER DELETE OR UPDATE OF rate_card_version, cost_roles ON public.billing_groups FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0014_people.sql",
    functions: [notify],
  },
  // A new child account joins its ancestors' principals' cached reach (docs/contract.md §21).
  {
    name: "billing_groups_notify_auth_child",
    table: "billing_groups",
    definition:
      "CREATE TRIGGER billing_groups_notify_auth_child AFTER INSERT ON public.billing_groups FOR EACH ROW WHEN ((new.parent_id IS NOT NULL)) EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0029_reach_subtree_notify.sql",
    functions: [notify],
  },
  // An organization's two-factor requirement empties its unenrolled members' scopes (docs/contract.md §15).
  {
    name: "organizations_notify_auth",
    table: "organizations",
    definition:
      "CREATE TRIGGER organizations_notify_auth AFTER UPDATE OF require_two_factor ON public.organizations FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0015_two_factor.sql",
    functions: [notify],
  },
  {
    name: "portal_sessions_notify_auth",
    table: "portal_sessions",
    definition:
      "CREATE TRIGGER portal_sessions_notify_auth AFTER DELETE OR UPDATE ON public.portal_sessions FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0003_hardening.sql",
    functions: [notify],
  },
  // A signed-in person's principal (lib/people): their session, membership and role, and their group's cost roles.
  {
    name: "auth_sessions_notify_auth",
    table: "auth_sessions",
    definition:
      "CREATE TRIGGER auth_sessions_notify_auth AFTER DELETE OR UPDATE ON public.auth_sessions FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0014_people.sql",
    functions: [notify],
  },
  {
    name: "members_notify_auth",
    table: "members",
    definition:
      "CREATE TRIGGER members_notify_auth AFTER INSERT OR DELETE OR UPDATE ON public.members FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0014_people.sql",
    functions: [notify],
  },
  {
    name: "users_notify_auth",
    table: "users",
    definition:
      "CREATE TRIGGER users_notify_auth AFTER DELETE OR UPDATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change()",
    migration: "0014_people.sql",
    functions: [notify],
  },
];
