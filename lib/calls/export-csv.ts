import { costViewOf } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { csvField, streamPagedCsv } from "@/lib/http/csv";
import { listCalls, type CallFilters, type CallListing } from "./list-calls";
import { callSchema, callWithCostSchema } from "./schemas";

/**
 * The CSV columns a principal may see: the Call schema's fields, plus the cost ones for calls:read_cost (without
 * supplierId for a reseller's cost view, lib/auth/cost-view.ts).
 */
export function csvColumns(principal: Principal): string[] {
  const view = costViewOf(principal);
  if (view.kind === "none") return Object.keys(callSchema.shape);
  const columns = Object.keys(callWithCostSchema.shape);
  return view.kind === "operator" ? columns : columns.filter((c) => c !== "supplierId");
}

/** The CSV lines of a page of serialised calls (serializeCall's output: the cost rule is already applied). */
export function csvRows(columns: readonly string[], page: CallListing["page"]): string {
  let text = "";
  for (const call of page) {
    const record = call as Record<string, unknown>;
    text += `${columns.map((c) => csvField(record[c])).join(",")}\r\n`;
  }
  return text;
}

/**
 * Every call matching the filters as CSV, streamed page by page through listCalls (and so through
 * serializeCall: the cost rule lives in one place), one page in memory (streamPagedCsv).
 */
export async function exportCallsCsv(
  db: Executor,
  principal: Principal,
  filters: CallFilters,
  pageSize = 1000,
): Promise<ReadableStream<Uint8Array>> {
  const columns = csvColumns(principal);
  return streamPagedCsv(
    columns,
    (cursor) => listCalls(db, principal, filters, { pageSize, cursor }),
    (listing: CallListing) => csvRows(columns, listing.page),
  );
}
