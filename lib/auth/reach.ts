import { eq, inArray, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "./principal";

/**
 * Which accounts (billing groups) a caller may touch: the one place that decides it (docs/contract.md §21, "Reach").
 * `platform`: every group, and the platform's own rows (billing_group_id null). `groups`: the caller's own group
 * (`own`: the key's, or the person's organization's) and its subtree of reseller tiers (every descendant by
 * parent_id), read with the credential (Principal.reachGroupIds, lib/auth/find-key.ts).
 */
export type PlatformReach = { readonly kind: "platform" };
export type GroupsReach = { readonly kind: "groups"; readonly own: string; readonly groupIds: readonly string[] };
export type Reach = PlatformReach | GroupsReach;

const PLATFORM: Reach = { kind: "platform" };

/**
 * The reach of a key or session: a principal bound to no group (a platform key, platform staff) reaches all; a bound
 * one its group and that group's descendants. A principal made without its subtree (reachGroupIds absent) reaches
 * its own group only: narrower, never wider.
 */
export function reachOf(principal: Pick<Principal, "billingGroupId" | "reachGroupIds">): Reach {
  const own = principal.billingGroupId;
  if (own === null) return PLATFORM;
  const subtree = principal.reachGroupIds;
  return { kind: "groups", own, groupIds: subtree && subtree.includes(own) ? subtree : [own] };
}

export function isPlatform(reach: Reach): reach is PlatformReach {
  return reach.kind === "platform";
}

/** Whether the reach includes this group (a platform reach: every group, and the platform's own null). */
export function reaches(reach: Reach, groupId: string | null): boolean {
  return isPlatform(reach) || (groupId !== null && reach.groupIds.includes(groupId));
}

/**
 * The caller's own group, which the operations that work on one group (a balance, a rate lookup, ingest, a new key's
 * default group) act on, even when the reach holds its subtree too; null for the platform, which has none of its own.
 */
export function ownGroup(reach: Reach): string | null {
  return isPlatform(reach) ? null : reach.own;
}

/**
 * The one group every row of the reach is in, or null (the platform, or a reseller's subtree of several): what lets a
 * lookup use a per-group index (list-calls' uuid filter).
 */
export function singleGroup(reach: Reach): string | null {
  return isPlatform(reach) || reach.groupIds.length !== 1 ? null : reach.groupIds[0];
}

/**
 * The accounts a listing or report reads (GET /v1/calls, /v1/usage, /v1/invoices, exports): the one `named` within
 * reach; none named, every account of the reach (null: every group, for the platform); `outside` as resolveAccount.
 */
export function resolveListing(
  reach: Reach,
  named: string | null | undefined,
): { groups: readonly string[] | null } | { outside: string } {
  if (named === undefined || named === null) return { groups: isPlatform(reach) ? null : reach.groupIds };
  return reaches(reach, named) ? { groups: [named] } : { outside: named };
}

/** The SQL condition confining `column` to a resolveListing's groups; undefined for null (every group). */
export function groupsCondition(groups: readonly string[] | null, column: SQLWrapper): SQL | undefined {
  if (groups === null) return undefined;
  return groups.length === 1 ? eq(column, groups[0]) : inArray(column, [...groups]);
}

/**
 * The SQL condition confining `column` (a billing group id) to the reach; undefined for the platform (no
 * condition), which drizzle's `and(...)` and `.where(...)` skip.
 */
export function reachCondition(reach: Reach, column: SQLWrapper): SQL | undefined {
  return groupsCondition(isPlatform(reach) ? null : reach.groupIds, column);
}

/** reachCondition for a raw `sql` query: `AND <condition>`, or nothing for the platform. */
export function andReach(reach: Reach, column: SQLWrapper): SQL {
  const condition = reachCondition(reach, column);
  return condition === undefined ? sql`` : sql`AND ${condition}`;
}

/**
 * The account a request names (a query's `account`, a body's `billingGroupId`), checked against the reach:
 * - none named (undefined or null; a caller that takes "" for none passes undefined): the caller's own group, or
 *   null for the platform (every account, or the caller decides);
 * - named and within reach: that account;
 * - named outside the reach: `outside`, which each caller answers as it always has (an empty page, 404, 403), so
 *   that whether the account exists never shows.
 */
export function resolveAccount(
  reach: Reach,
  named: string | null | undefined,
): { account: string | null } | { outside: string } {
  if (named === undefined || named === null) return { account: ownGroup(reach) };
  return reaches(reach, named) ? { account: named } : { outside: named };
}

/**
 * The account a request concerns: a group's caller its own (naming another answers 404), a platform caller the one
 * it names, or none (null: the caller decides whether that is allowed).
 */
export function accountOf(
  principal: Pick<Principal, "billingGroupId" | "reachGroupIds">,
  named: string | undefined,
): string | null {
  const resolved = resolveAccount(reachOf(principal), named || undefined);
  if ("outside" in resolved)
    throw new ApiError("not_found", `No account with id ${JSON.stringify(resolved.outside.slice(0, 64))}.`);
  return resolved.account;
}

/**
 * What a pagination cursor's scope hash records of the reach, so a cursor handed to one caller does not page
 * another's rows: the group ids, or "*" for every group (the value cursors have always held). A reseller's cursors
 * lapse (400 invalid_cursor) when a new account joins its subtree.
 */
export function cursorScope(reach: Reach): string {
  return isPlatform(reach) ? "*" : [...reach.groupIds].sort().join(",");
}

/**
 * What a caller bound to a group hears from a platform-only operation (declared on the operation, `platformOnly`,
 * and enforced by apiRoute): 403 `insufficient_scope` even when it holds the scope (a customer must not raise its
 * own credit limit), with the words these routes have always answered.
 */
export const PLATFORM_ONLY_REFUSALS = {
  provisioning: "Provisioning accounts needs a platform key (one not bound to a billing group).",
  rating: "Rate decks and suppliers need a platform key or staff session (not bound to a billing group).",
} as const;
export type PlatformOnly = keyof typeof PLATFORM_ONLY_REFUSALS;

/** Throws 403 `insufficient_scope` unless the reach is the platform's. */
export function requirePlatform(reach: Reach, refusal: PlatformOnly): void {
  if (!isPlatform(reach)) throw new ApiError("insufficient_scope", PLATFORM_ONLY_REFUSALS[refusal]);
}

/**
 * Who provisions an account (docs/contract.md "Reseller tiers", §21): the platform any account; a caller bound to a
 * group only the strict descendants of its own account (a reseller's customers and theirs). Its own account answers
 * 403 `insufficient_scope` (a reseller does not top up, re-price or raise the limit of itself: its parent does); an
 * account outside its subtree answers 404, as if absent. `what` words the 403 ("top up", "change").
 */
export function requireProvisioningOf(reach: Reach, targetGroupId: string, what = "provision"): void {
  if (isPlatform(reach)) return;
  if (targetGroupId === reach.own) {
    throw new ApiError(
      "insufficient_scope",
      `A reseller may ${what} its customers' accounts, not its own: the account above it (or the operator) does.`,
    );
  }
  if (!reach.groupIds.includes(targetGroupId)) {
    throw new ApiError("not_found", `No account with id ${JSON.stringify(targetGroupId.slice(0, 64))}.`);
  }
}

/** Whether the reach provisions this account (requireProvisioningOf would let it through). */
export function provisions(reach: Reach, targetGroupId: string): boolean {
  return isPlatform(reach) || (targetGroupId !== reach.own && reach.groupIds.includes(targetGroupId));
}
