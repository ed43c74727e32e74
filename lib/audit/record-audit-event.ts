import type { Executor } from "@/lib/db/client";
import { auditEvents } from "@/lib/db/schema";

/** Who made a change: an API key (or a portal session signed in with one), a person, the operator's CLI, the system. */
export interface AuditActor {
  type: "api_key" | "user" | "cli" | "system";
  id: string | null;
  label: string | null;
}

export interface AuditEventInput {
  actor: AuditActor;
  /** A dotted verb, subject first: "api_key.created", "member.removed", "invoice.issued". */
  action: string;
  /** The organization (billing group) the change concerns; null: the platform's own. */
  billingGroupId: string | null;
  targetType: string;
  targetId: string | null;
  /** The client's address as the HTTP edge resolved it (clientAddress); null off HTTP. */
  address: string | null;
  /** JSON snapshots of the target before and after the change. Never secrets: see withoutSecrets. */
  before?: unknown;
  after?: unknown;
}

/** Field names whose values never enter the log, at any depth of a snapshot (docs/contract.md "Audit events"). */
const SECRET_FIELD = /secret|password|hash|token|^key$/i;

/**
 * A snapshot as stored: fields named like secrets dropped (a careless `after: createdKey` must not store the key),
 * undefined as null. Snapshots are plain JSON: Dates become ISO text, bigints decimal text.
 */
export function withoutSecrets(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Set) return [...value].map(withoutSecrets);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      if (!SECRET_FIELD.test(name) && field !== undefined) out[name] = withoutSecrets(field);
    }
    return out;
  }
  return value;
}

/**
 * Appends one event to the audit log. Pass the transaction that makes the change, so the event commits (or rolls
 * back) with it: a change is never without its event, nor an event without its change. The log is append-only
 * (lib/audit/triggers.ts).
 */
export async function recordAuditEvent(tx: Executor, event: AuditEventInput): Promise<void> {
  await tx.insert(auditEvents).values({
    billingGroupId: event.billingGroupId,
    actorType: event.actor.type,
    actorId: event.actor.id,
    actorLabel: event.actor.label,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    address: event.address,
    before: withoutSecrets(event.before),
    after: withoutSecrets(event.after),
  });
}
