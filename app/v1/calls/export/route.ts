import { apiRoute } from "@/lib/api/handler";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";
import { callFiltersFromQuery } from "@/lib/calls/list-calls";
import { exportCallsOperation } from "@/lib/calls/operations";

// GET /v1/calls/export: every call matching the /v1/calls filters, as a streamed CSV download.
export const GET = apiRoute(exportCallsOperation, async ({ readDb, principal, query }) => {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  // Awaited: the first page is read before the 200, so its failure is a problem+json answer.
  return new Response(await callReadsWithHistory(await readDb()).exportCsv(principal, callFiltersFromQuery(query)), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="calls-${stamp}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
