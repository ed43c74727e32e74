import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import { createExportBodySchema, exportSchema } from "./schemas";

/** The /v1 operations on background exports (routes in app/v1/exports; README "Background exports"). */

const exportId = z.object({ id: idSchema("exp", "Export id, from the `id` of POST /v1/exports") });

export const createExportOperation = defineOperation({
  operationId: "createExport",
  method: "POST",
  path: "/v1/exports",
  tag: "Exports",
  summary: "Start a CSV export",
  description:
    "Starts a CSV export of every call matching `filters` (those of `GET /v1/calls/export`) in the background and " +
    "answers at once (202, `Location` of the export). Poll `GET /v1/exports/{id}` for progress; when it has " +
    "`succeeded` it carries a download link valid for 1 hour. The file has the columns of `GET /v1/calls/export` " +
    "(cost columns only for `calls:read_cost` keys) and is kept 24 hours. Only the key that started an export sees it.",
  scope: "calls:read",
  idempotent: true,
  body: createExportBodySchema,
  responses: { 202: { description: "The export, queued", body: exportSchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const getExportOperation = defineOperation({
  operationId: "getExport",
  method: "GET",
  path: "/v1/exports/{id}",
  tag: "Exports",
  summary: "Get an export",
  description:
    "Status and progress (`rowsDone` of `rowsEstimated`) of an export this key started; once `succeeded`, a " +
    "`download.url` signed at this request and valid for 1 hour. Another key's export answers 404.",
  scope: "calls:read",
  params: exportId,
  responses: { 200: { description: "The export", body: exportSchema } },
});

export const downloadExportOperation = defineOperation({
  operationId: "downloadExport",
  method: "GET",
  path: "/v1/exports/{id}/download",
  tag: "Exports",
  summary: "Download an export's CSV",
  description:
    "The finished CSV, through the `download.url` of `GET /v1/exports/{id}` and with the key that started the " +
    "export. 410 `link_expired` once the link's hour has passed (read the export again for a new link); 409 " +
    "`conflict` while the file is not finished.",
  scope: "calls:read",
  params: exportId,
  query: z.object({
    expires: z
      .string()
      .regex(/^\d{1,12}$/, "must be the link's expiry (seconds)")
      .describe("From the link"),
    signature: z.string().max(64).describe("From the link"),
  }),
  responses: { 200: { description: "CSV with a header row", body: z.string(), contentType: "text/csv" } },
  errors: ["link_expired", "conflict"],
});

/** The /v1 operations on background exports, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const EXPORT_OPERATIONS = [createExportOperation, getExportOperation, downloadExportOperation] as const;
