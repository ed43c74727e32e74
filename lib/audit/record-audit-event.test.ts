import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "@/lib/db/client";
import { auditEvents } from "@/lib/db/schema";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { recordAuditEvent, withoutSecrets, type AuditEventInput } from "./record-audit-event";

const event = (overrides: Partial<AuditEventInput> = {}): AuditEventInput => ({
  actor: { type: "api_key", id: "key_a", label: "ops" },
  action: "api_key.created",
  billingGroupId: "bg_a",
  targetType: "api_key",
  targetId: "key_b",
  address: "198.51.100.7",
  after: { id: "key_b", name: "deploy", scopes: ["calls:read"] },
  ...overrides,
});

describe("withoutSecrets", () => {
  it("drops secret-named fields at any depth and makes dates, bigints and sets plain JSON", () => {
    const at = new Date("2026-01-02T03:04:05.006Z");
    expect(
      withoutSecrets({
        id: "key_b",
        key: "ck_secret",
        secret: "s",
        hash: "h",
        nested: { passwordHash: "x", token: "t", kept: 1 },
        at,
        amount: 12n,
        scopes: new Set(["calls:read"]),
        gone: undefined,
      }),
    ).toEqual({ id: "key_b", nested: { kept: 1 }, at: at.toISOString(), amount: "12", scopes: ["calls:read"] });
    expect(withoutSecrets(undefined)).toBeNull();
  });
});

describeOnEngines("the audit log", (handle) => {
  it("records an event with the transaction of the change, and not without it", async () => {
    const db = handle().db;
    await db.transaction(async (tx) => recordAuditEvent(tx, event({ targetId: "key_committed", key: "x" } as never)));
    await db
      .transaction(async (tx) => {
        await recordAuditEvent(tx, event({ targetId: "key_rolled_back" }));
        throw new Error("the change failed");
      })
      .catch(() => undefined);
    const rows = await db.select().from(auditEvents);
    expect(rows.map((r) => r.targetId)).toEqual(["key_committed"]);
    expect(rows[0]).toMatchObject({
      billingGroupId: "bg_a",
      actorType: "api_key",
      actorId: "key_a",
      actorLabel: "ops",
      action: "api_key.created",
      targetType: "api_key",
      address: "198.51.100.7",
      before: null,
      after: { id: "key_b", name: "deploy", scopes: ["calls:read"] },
    });
  });

  it("is append-only: UPDATE, DELETE and TRUNCATE are refused, whoever sends them", async () => {
    const db = handle().db;
    await recordAuditEvent(db, event({ targetId: "key_kept" }));
    const statements = [
      sql`UPDATE audit_events SET action = 'api_key.nothing' WHERE target_id = 'key_kept'`,
      sql`DELETE FROM audit_events WHERE target_id = 'key_kept'`,
      sql`DELETE FROM audit_events WHERE false`,
      sql`TRUNCATE audit_events`,
    ];
    for (const statement of statements) {
      // Drizzle wraps the database's error ("Failed query: ..."); the trigger's message is its cause.
      const error = await db.execute(statement).then(
        () => null,
        (e: unknown) => e as { cause?: { message?: string } },
      );
      expect(error?.cause?.message).toMatch(/audit_events is append-only: (UPDATE|DELETE|TRUNCATE) refused/);
    }
    const [kept] = await queryRows<{ action: string }>(
      db,
      sql`SELECT action FROM audit_events WHERE target_id = 'key_kept'`,
    );
    expect(kept.action).toBe("api_key.created");
  });

  it("refuses an unknown actor type", async () => {
    await expect(
      recordAuditEvent(handle().db, event({ actor: { type: "robot" as never, id: null, label: null } })),
    ).rejects.toThrow();
  });
});
