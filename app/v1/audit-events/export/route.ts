import { apiRoute } from "@/lib/api/handler";
import { exportAuditEventsCsv } from "@/lib/audit/export-csv";
import { auditFiltersFromQuery } from "@/lib/audit/list-audit-events";
import { exportAuditEventsOperation } from "@/lib/audit/operations";

// GET /v1/audit-events/export: every event matching the /v1/audit-events filters, as a streamed CSV download.
export const GET = apiRoute(exportAuditEventsOperation, async ({ db, principal, query }) => {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return new Response(await exportAuditEventsCsv(db, principal, auditFiltersFromQuery(query)), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-events-${stamp}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
