import { apiRoute } from "@/lib/api/handler";
import { downloadExportOperation } from "@/lib/exports/operations";
import { readExportFile } from "@/lib/exports/read-export-file";

// GET /v1/exports/{id}/download: the finished CSV, streamed from the database, through a signed link.
export const GET = apiRoute(downloadExportOperation, async ({ db, principal, params, query }) => {
  const file = await readExportFile(db, principal, params.id, query);
  const stamp = file.createdAt.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return new Response(file.stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="calls-${stamp}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
