import { apiRoute, json } from "@/lib/api/handler";
import { createExportOperation } from "@/lib/exports/operations";
import { parseCreateExport, startExport } from "@/lib/exports/start-export";
import { readJsonBody } from "@/lib/http/body";

// POST /v1/exports: queue a background CSV export of the calls matching the filters (Idempotency-Key honoured).
export const POST = apiRoute(createExportOperation, async ({ db, principal, request }) => {
  const { filters } = parseCreateExport(await readJsonBody(request, { code: "invalid_request_body" }));
  const started = await startExport(db, principal, filters);
  return json(started, 202, { location: `/v1/exports/${started.id}` });
});
