import { z } from "zod";
import { listCallsQuerySchema } from "@/lib/calls/schemas";

// ---- body of POST /v1/exports ----

// The filters of GET /v1/calls/export, the same validation (imported, not copied); an export has no pages.
const calls = listCallsQuerySchema.shape;
const filterShape = {
  "startTime[gte]": calls["startTime[gte]"],
  "startTime[lte]": calls["startTime[lte]"],
  direction: calls.direction,
  to: calls.to,
  toPrefix: calls.toPrefix,
  from: calls.from,
  hangupCause: calls.hangupCause,
  id: calls.id,
  uuid: calls.uuid,
  billingGroupId: calls.billingGroupId,
  supplierId: calls.supplierId,
};

export const EXPORT_FILTER_NAMES = Object.keys(filterShape) as (keyof typeof filterShape)[];

export const exportFiltersSchema = z
  .strictObject(filterShape)
  .superRefine((filters, ctx) => {
    // Cross-field rules (startTime[gte] <= startTime[lte]) come from the calls schema itself.
    const checked = listCallsQuerySchema.safeParse(filters);
    if (checked.success) return;
    for (const issue of checked.error.issues) {
      const field = String(issue.path[0]) as keyof typeof filterShape;
      // Already reported by the field's own schema.
      if (field in filterShape && !filterShape[field].safeParse(filters[field]).success) continue;
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  })
  .meta({
    id: "ExportFilters",
    description: "The filters of `GET /v1/calls/export`, with the same names, values and rules (all optional)",
  });

export const createExportBodySchema = z
  .strictObject({
    filters: exportFiltersSchema.optional().default({}),
  })
  .meta({ id: "CreateExportRequest", description: "A background CSV export of the calls matching `filters`" });

export type ExportFilters = z.output<typeof exportFiltersSchema>;

// ---- answers ----

export const EXPORT_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export const exportSchema = z
  .object({
    id: z.string().describe("Export id (`exp_...`)"),
    status: z
      .enum(EXPORT_STATUSES)
      .describe("`queued`, `running`, then `succeeded` (the file is ready) or `failed` (see `error`)"),
    filters: z.record(z.string(), z.string()).describe("The filters as given"),
    rowsDone: z.number().int().describe("Calls written to the file so far"),
    rowsEstimated: z
      .number()
      .int()
      .nullable()
      .describe(
        "Calls the filters matched when the export started (null until counted); calls arriving later may add some",
      ),
    createdAt: z.string().describe("ISO 8601"),
    completedAt: z.string().nullable().describe("When the file was finished or the export failed"),
    expiresAt: z.string().describe("When the export and its file are deleted (24 hours after it was started)"),
    error: z.string().nullable().describe("Why the export failed"),
    download: z
      .object({
        url: z.string().describe("Absolute URL of the CSV; it needs the same key as this request"),
        expiresAt: z.string().describe("The URL answers 410 `link_expired` after this instant (1 hour)"),
      })
      .nullable()
      .describe("When `succeeded`: a download link, freshly signed at each read of the export"),
  })
  .meta({ id: "Export", description: "A background CSV export of calls" });

export type Export = z.infer<typeof exportSchema>;
