import { z } from "zod";
import { defineOperation } from "@/lib/openapi/operation";
import { auditEventPageSchema, listAuditEventsQuerySchema } from "./schemas";

/** The /v1 operations on the audit log (routes in app/v1/audit-events; lib/openapi/operation.ts says each field). */

export const listAuditEventsOperation = defineOperation({
  operationId: "listAuditEvents",
  method: "GET",
  path: "/v1/audit-events",
  tag: "Audit",
  summary: "List audit events",
  description:
    "The append-only log of changes (keys created and revoked, and every other change recorded), newest first " +
    "(`occurredAt` descending, then `id` descending), paged exactly like `GET /v1/calls`: follow `nextPageUrl` " +
    "with the same Authorization header until `meta.hasMore` is false. A group's key sees its group's events; a " +
    "platform key every group's and the platform's own, narrowed with `account`.",
  scope: "audit:read",
  query: listAuditEventsQuerySchema,
  responses: { 200: { description: "A page of audit events", body: auditEventPageSchema } },
  errors: ["invalid_cursor"],
});

export const exportAuditEventsOperation = defineOperation({
  operationId: "exportAuditEvents",
  method: "GET",
  path: "/v1/audit-events/export",
  tag: "Audit",
  summary: "Export audit events as CSV",
  description:
    "Every event matching the filters of `GET /v1/audit-events`, newest first, as one CSV download: the event's " +
    "fields flattened (`actorType`, `actorId`, `actorLabel`, `targetType`, `targetId`), `before` and `after` as JSON.",
  scope: "audit:read",
  query: listAuditEventsQuerySchema,
  undocumentedQuery: ["cursor", "pageSize"],
  responses: { 200: { description: "CSV with a header row", body: z.string(), contentType: "text/csv" } },
});

/** The /v1 operations on the audit log, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const AUDIT_OPERATIONS = [listAuditEventsOperation, exportAuditEventsOperation] as const;
