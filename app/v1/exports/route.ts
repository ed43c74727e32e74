import { apiRoute, json } from "@/lib/api/handler";
import { createExportOperation } from "@/lib/exports/operations";
import { startExport } from "@/lib/exports/start-export";

// POST /v1/exports: queue a background CSV export of the calls matching the filters (Idempotency-Key honoured).
export const POST = apiRoute(createExportOperation, async ({ db, principal, body }) => {
  const started = await startExport(db, principal, body.filters);
  return json(started, 202, { location: `/v1/exports/${started.id}` });
});
