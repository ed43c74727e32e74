import { z } from "zod";
import { filterTextParam, instantParam, pageEnvelope, pageSizeParam } from "@/lib/http/query-params";

/** The AuditEvent resource of /v1 (docs/contract.md "Audit events"); list-audit-events.ts is its only producer. */

export const AUDIT_ACTOR_TYPES = ["api_key", "user", "cli", "system"] as const;

export const auditEventSchema = z
  .object({
    id: z.string().describe("Identifier of the event (digits), increasing in the order events were recorded"),
    occurredAt: z.string().describe("When the change was made (its transaction's start), ISO 8601 UTC"),
    billingGroupId: z
      .string()
      .nullable()
      .describe("The billing group (account) the change concerns; null for the platform's own changes"),
    actor: z
      .object({
        type: z.enum(AUDIT_ACTOR_TYPES).describe("api_key (also a portal session signed in with a key), user, cli"),
        id: z.string().nullable().describe("The key's id, the person's id; null for the CLI and the system"),
        label: z.string().nullable().describe("A name for the actor at the time: the key's name, the person's email"),
      })
      .describe("Who made the change"),
    action: z.string().describe("What was done: a dotted verb, e.g. `api_key.created`, `api_key.revoked`"),
    target: z
      .object({ type: z.string().describe("What was changed, e.g. `api_key`"), id: z.string().nullable() })
      .describe("What the change was made to"),
    address: z.string().nullable().describe("The client's IP address; null for changes not made over HTTP"),
    before: z.unknown().describe("The target before the change (JSON), null when it did not exist; never secrets"),
    after: z.unknown().describe("The target after the change (JSON), null when it no longer exists; never secrets"),
  })
  .meta({ id: "AuditEvent", description: "One change recorded in the append-only audit log" });

export type AuditEvent = z.infer<typeof auditEventSchema>;

export const auditEventPageSchema = z
  .object({
    events: z.array(auditEventSchema),
    ...pageEnvelope,
  })
  .meta({ id: "AuditEventPage", description: "One page of audit events, newest first" });

export type AuditEventPage = z.infer<typeof auditEventPageSchema>;

// ---- query of GET /v1/audit-events (and its export) ----

export const MAX_AUDIT_PAGE_SIZE = 1000;
export const DEFAULT_AUDIT_PAGE_SIZE = 50;

export const listAuditEventsQuerySchema = z
  .object({
    pageSize: pageSizeParam({ max: MAX_AUDIT_PAGE_SIZE, fallback: DEFAULT_AUDIT_PAGE_SIZE, items: "Events" }),
    cursor: z.string().optional().describe("Opaque cursor taken from nextPageUrl; pass it unmodified"),
    "occurredAt[gte]": instantParam(
      "Keep events at or after this instant (inclusive); a date alone means 00:00:00Z of that day",
    ),
    "occurredAt[lte]": instantParam(
      "Keep events at or before this instant (inclusive); a date alone means 00:00:00Z of that day",
    ),
    action: z
      .string()
      .max(64, "must be at most 64 characters")
      .regex(
        /^([a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)?$/,
        "must be a dotted action (`api_key.created`) or a prefix (`api_key.*`)",
      )
      .optional()
      .describe("Exact action (`api_key.revoked`), or every action under a prefix (`api_key.*`)"),
    actorType: z
      .enum(AUDIT_ACTOR_TYPES, { error: `must be one of ${AUDIT_ACTOR_TYPES.join(", ")}` })
      .optional()
      .describe("Events of this kind of actor only"),
    actorId: filterTextParam(128, "Events of this actor only (a key's id, a person's id)"),
    account: filterTextParam(
      64,
      "Events of this billing group (account) only; for platform keys, which see every group and the platform's own",
    ),
  })
  .superRefine((q, ctx) => {
    const gte = q["occurredAt[gte]"];
    const lte = q["occurredAt[lte]"];
    if (gte && lte && Date.parse(gte) > Date.parse(lte)) {
      ctx.addIssue({ code: "custom", path: ["occurredAt[gte]"], message: "must not be after occurredAt[lte]" });
    }
  });

export type ListAuditEventsQuery = z.output<typeof listAuditEventsQuerySchema>;
