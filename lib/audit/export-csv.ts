import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { csvField, streamPagedCsv } from "@/lib/http/csv";
import { listAuditEvents, type AuditEventFilters, type AuditEventListing } from "./list-audit-events";
import type { AuditEvent } from "./schemas";

/** The CSV columns: the AuditEvent fields flattened, before and after as JSON text. */
export const AUDIT_CSV_COLUMNS = [
  "id",
  "occurredAt",
  "billingGroupId",
  "actorType",
  "actorId",
  "actorLabel",
  "action",
  "targetType",
  "targetId",
  "address",
  "before",
  "after",
] as const;

function csvRow(event: AuditEvent): string {
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const fields = [
    event.id,
    event.occurredAt,
    event.billingGroupId,
    event.actor.type,
    event.actor.id,
    event.actor.label,
    event.action,
    event.target.type,
    event.target.id,
    event.address,
    json(event.before),
    json(event.after),
  ];
  return `${fields.map(csvField).join(",")}\r\n`;
}

/**
 * Every event matching the filters as CSV, newest first, streamed page by page through listAuditEvents (so the
 * caller's reach is the listing's). The first page is read before this resolves, so a failure is a problem+json
 * answer rather than a dropped download; then one page at a time as the client reads.
 */
export async function exportAuditEventsCsv(
  db: Executor,
  principal: Principal,
  filters: AuditEventFilters,
  pageSize = 1000,
): Promise<ReadableStream<Uint8Array>> {
  return streamPagedCsv(
    AUDIT_CSV_COLUMNS,
    (cursor) => listAuditEvents(db, principal, filters, { pageSize, cursor }),
    (listing: AuditEventListing) => listing.events.map(csvRow).join(""),
  );
}
