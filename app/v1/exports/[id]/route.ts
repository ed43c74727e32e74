import { apiRoute } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { pageOrigin } from "@/lib/http/next-page-link";
import { getExport } from "@/lib/exports/get-export";
import { getExportOperation } from "@/lib/exports/operations";

// GET /v1/exports/{id}: status, progress and (when finished) a download link valid for an hour.
export const GET = apiRoute(getExportOperation, ({ db, principal, params, request }) =>
  getExport(db, principal, params.id, pageOrigin(request, publicBaseUrl())),
);
