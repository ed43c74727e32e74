import { PgDialect } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import {
  andReach,
  cursorScope,
  isPlatform,
  ownGroup,
  PLATFORM_ONLY_REFUSALS,
  reachCondition,
  reachOf,
  reaches,
  provisions,
  requirePlatform,
  requireProvisioningOf,
  resolveAccount,
  resolveListing,
  singleGroup,
  type Reach,
} from "./reach";

const platform = reachOf({ billingGroupId: null });
const groupA = reachOf({ billingGroupId: "bg_a" });
// A reseller bound to bg_b with one customer, bg_a.
const subtree: Reach = reachOf({ billingGroupId: "bg_b", reachGroupIds: ["bg_b", "bg_a"] });
const dialect = new PgDialect();

describe("reach", () => {
  it("a principal bound to no group reaches every group and the platform's own rows; a bound one its group only", () => {
    expect(isPlatform(platform)).toBe(true);
    expect(groupA).toEqual({ kind: "groups", own: "bg_a", groupIds: ["bg_a"] });
    expect([reaches(platform, "bg_x"), reaches(platform, null)]).toEqual([true, true]);
    expect([reaches(groupA, "bg_a"), reaches(groupA, "bg_b"), reaches(groupA, null)]).toEqual([true, false, false]);
    expect([ownGroup(platform), ownGroup(groupA)]).toEqual([null, "bg_a"]);
  });

  it("a reseller reaches its subtree; its own group stays the one its one-group operations act on", () => {
    expect([reaches(subtree, "bg_b"), reaches(subtree, "bg_a"), reaches(subtree, "bg_c")]).toEqual([true, true, false]);
    expect(ownGroup(subtree)).toBe("bg_b");
    expect(singleGroup(subtree)).toBeNull();
    expect([singleGroup(groupA), singleGroup(platform)]).toEqual(["bg_a", null]);
    // Unnamed: the one-group operations take the own group, the listings the whole reach; named: one of the subtree.
    expect(resolveAccount(subtree, undefined)).toEqual({ account: "bg_b" });
    expect(resolveAccount(subtree, "bg_a")).toEqual({ account: "bg_a" });
    expect(resolveAccount(subtree, "bg_c")).toEqual({ outside: "bg_c" });
    expect(resolveListing(subtree, undefined)).toEqual({ groups: ["bg_b", "bg_a"] });
    expect(resolveListing(subtree, "bg_a")).toEqual({ groups: ["bg_a"] });
    expect(resolveListing(subtree, "bg_c")).toEqual({ outside: "bg_c" });
    expect(resolveListing(platform, undefined)).toEqual({ groups: null });
    // A subtree that does not hold the own group (never read so) falls back to the own group: narrower, never wider.
    expect(reachOf({ billingGroupId: "bg_x", reachGroupIds: ["bg_a"] })).toEqual({
      kind: "groups",
      own: "bg_x",
      groupIds: ["bg_x"],
    });
  });

  it("as SQL: no condition for the platform, equality for one group, IN for several", () => {
    expect(reachCondition(platform, apiKeys.billingGroupId)).toBeUndefined();
    const one = dialect.sqlToQuery(reachCondition(groupA, apiKeys.billingGroupId)!);
    expect(one).toMatchObject({ sql: '"api_keys"."billing_group_id" = $1', params: ["bg_a"] });
    const several = dialect.sqlToQuery(reachCondition(subtree, apiKeys.billingGroupId)!);
    expect(several).toMatchObject({ sql: '"api_keys"."billing_group_id" in ($1, $2)', params: ["bg_b", "bg_a"] });
    const raw = sql.raw("billing_group_id");
    expect(dialect.sqlToQuery(sql`WHERE true ${andReach(platform, raw)}`).sql.trim()).toBe("WHERE true");
    expect(dialect.sqlToQuery(sql`WHERE true ${andReach(groupA, raw)}`)).toMatchObject({
      sql: "WHERE true AND billing_group_id = $1",
      params: ["bg_a"],
    });
  });

  it("resolves a named account: the caller's own when none is named, outside when out of reach", () => {
    expect(resolveAccount(platform, undefined)).toEqual({ account: null });
    expect(resolveAccount(platform, "bg_x")).toEqual({ account: "bg_x" });
    expect(resolveAccount(groupA, undefined)).toEqual({ account: "bg_a" });
    expect(resolveAccount(groupA, null)).toEqual({ account: "bg_a" });
    expect(resolveAccount(groupA, "bg_a")).toEqual({ account: "bg_a" });
    expect(resolveAccount(groupA, "bg_b")).toEqual({ outside: "bg_b" });
    // "" is a name (create-key refuses it as naming no group); callers that take it for none pass undefined.
    expect(resolveAccount(groupA, "")).toEqual({ outside: "" });
  });

  it("keeps the cursor scope cursors were signed with: '*' for the platform, the group id for a bound key", () => {
    expect(cursorScope(platform)).toBe("*");
    expect(cursorScope(groupA)).toBe("bg_a");
    expect(cursorScope(subtree)).toBe("bg_a,bg_b");
  });

  it("refuses a bound caller on a platform-only operation with 403 insufficient_scope and the operation's words", () => {
    expect(() => requirePlatform(platform, "provisioning")).not.toThrow();
    for (const kind of ["provisioning", "rating"] as const) {
      let refused: unknown;
      try {
        requirePlatform(groupA, kind);
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ code: "insufficient_scope", status: 403, detail: PLATFORM_ONLY_REFUSALS[kind] });
    }
  });
  it("provisions: the platform any account, a reseller its strict descendants (own: 403, outside: 404)", () => {
    const codeOf = (reach: Reach, target: string) => {
      try {
        requireProvisioningOf(reach, target, "top up");
        return "ok";
      } catch (error) {
        return (error as ApiError).code;
      }
    };
    // bg_b resells to bg_a; bg_c is elsewhere.
    expect(["bg_a", "bg_b", "bg_c"].map((t) => codeOf(platform, t))).toEqual(["ok", "ok", "ok"]);
    expect(["bg_a", "bg_b", "bg_c"].map((t) => codeOf(subtree, t))).toEqual(["ok", "insufficient_scope", "not_found"]);
    // A customer without children provisions nothing, itself included.
    expect(["bg_a", "bg_b"].map((t) => codeOf(groupA, t))).toEqual(["insufficient_scope", "not_found"]);
    expect(["bg_a", "bg_b", "bg_c"].map((t) => provisions(subtree, t))).toEqual([true, false, false]);
    try {
      requireProvisioningOf(subtree, "bg_b", "top up");
    } catch (error) {
      expect((error as ApiError).detail).toMatch(/may top up its customers' accounts, not its own/);
    }
  });
});
