import { expect, it } from "vitest";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { exportAuditEventsCsv } from "./export-csv";
import { listAuditEvents, type AuditEventFilters } from "./list-audit-events";
import { recordAuditEvent, type AuditEventInput } from "./record-audit-event";

const reader = (group: string | null) => testPrincipal(group, ["audit:read"]);

function event(group: string | null, action: string, targetId: string, actorId = "key_a"): AuditEventInput {
  return {
    actor: { type: "api_key", id: actorId, label: null },
    action,
    billingGroupId: group,
    targetType: "api_key",
    targetId,
    address: null,
    after: { id: targetId },
  };
}

async function walk(db: Parameters<typeof listAuditEvents>[0], group: string | null, filters: AuditEventFilters = {}) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listAuditEvents(db, reader(group), filters, { pageSize: 3, cursor });
    seen.push(...page.events.map((e) => e.target.id!));
    if (!page.hasMore) return seen;
    cursor = page.nextCursor;
  }
}

describeOnEngines("listing audit events", (handle) => {
  it("walks every event of the caller's reach once, newest first, even when several share an instant", async () => {
    const db = handle().db;
    // One transaction: every event shares occurred_at, so the id alone orders them.
    await db.transaction(async (tx) => {
      for (let i = 0; i < 7; i++) await recordAuditEvent(tx, event("bg_a", "api_key.created", `a${i}`));
    });
    for (let i = 0; i < 4; i++) await recordAuditEvent(db, event("bg_b", "api_key.revoked", `b${i}`));
    await recordAuditEvent(db, event(null, "billing_group.created", "platform0"));

    expect(await walk(db, "bg_a")).toEqual(["a6", "a5", "a4", "a3", "a2", "a1", "a0"]);
    expect(await walk(db, "bg_b")).toEqual(["b3", "b2", "b1", "b0"]);
    const all = await walk(db, null);
    expect(all).toHaveLength(12);
    expect(new Set(all).size).toBe(12);
    expect(all[0]).toBe("platform0");
    // A platform key narrows with `account`; a group's key naming another group gets nothing.
    expect(await walk(db, null, { account: "bg_b" })).toEqual(["b3", "b2", "b1", "b0"]);
    expect(await walk(db, "bg_a", { account: "bg_b" })).toEqual([]);
  });

  it("filters by action (exact or prefix), actor and time, and binds its cursor to them", async () => {
    const db = handle().db;
    await recordAuditEvent(db, event("bg_c", "api_key.created", "c0", "key_x"));
    await recordAuditEvent(db, event("bg_c", "api_key.revoked", "c1", "key_y"));
    await recordAuditEvent(db, event("bg_c", "member.removed", "c2", "key_x"));
    expect(await walk(db, "bg_c", { action: "api_key.revoked" })).toEqual(["c1"]);
    expect(await walk(db, "bg_c", { action: "api_key", actionIsPrefix: true })).toEqual(["c1", "c0"]);
    expect(await walk(db, "bg_c", { actorId: "key_x" })).toEqual(["c2", "c0"]);
    expect(await walk(db, "bg_c", { actorType: "cli" })).toEqual([]);
    expect(await walk(db, "bg_c", { occurredAtGte: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await walk(db, "bg_c", { occurredAtLte: new Date(Date.now() + 60_000) })).toHaveLength(3);

    const first = await listAuditEvents(db, reader("bg_c"), {}, { pageSize: 1 });
    await expect(
      listAuditEvents(db, reader("bg_c"), { actorId: "key_x" }, { pageSize: 1, cursor: first.nextCursor }),
    ).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(
      listAuditEvents(db, reader("bg_a"), {}, { pageSize: 1, cursor: first.nextCursor }),
    ).rejects.toMatchObject({ code: "invalid_cursor" });
  });

  it("exports the same events as CSV, before and after as JSON", async () => {
    const db = handle().db;
    await recordAuditEvent(db, { ...event("bg_d", "api_key.revoked", "d0"), before: { name: 'say "hi", =1' } });
    const text = await new Response(await exportAuditEventsCsv(db, reader("bg_d"), {}, 1)).text();
    const lines = text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,occurredAt,billingGroupId,actorType,actorId,actorLabel,action,targetType,targetId,address,before,after",
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(
      ',bg_d,api_key,key_a,,api_key.revoked,api_key,d0,,"{""name"":""say \\""hi\\"", =1""}","{""id"":""d0""}"',
    );
  });
});
