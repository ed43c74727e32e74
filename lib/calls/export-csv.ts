import { canReadCost, type Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { listCalls, type CallFilters, type CallListing } from "./list-calls";
import { callSchema, callWithCostSchema } from "./schemas";

/** The CSV columns a principal may see: the Call schema's fields, plus the cost ones for calls:read_cost. */
export function csvColumns(principal: Principal): string[] {
  return Object.keys(canReadCost(principal) ? callWithCostSchema.shape : callSchema.shape);
}

const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** RFC 4180 quoting, and no spreadsheet formulas: text starting with = + - @ is defused with a quote mark. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
 * serializeCall: the cost rule lives in one place). Pull-based: the next page is read only when the
 * client has taken the previous one, so memory stays at one page whatever the export's size.
 * The first page is read before this resolves: a bad query or an unreachable database then throws
 * here, before any 200 is sent, and becomes a problem+json answer instead of a dropped download.
 */
export async function exportCallsCsv(
  db: Executor,
  principal: Principal,
  filters: CallFilters,
  pageSize = 1000,
): Promise<ReadableStream<Uint8Array>> {
  const columns = csvColumns(principal);
  const encoder = new TextEncoder();
  const rows = (listing: CallListing) => csvRows(columns, listing.page);
  const first = await listCalls(db, principal, filters, { pageSize });
  let pending: string | null = `${columns.join(",")}\r\n${rows(first)}`;
  let cursor = first.nextCursor;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text: string;
        if (pending !== null) {
          text = pending;
          pending = null;
        } else {
          const listing = await listCalls(db, principal, filters, { pageSize, cursor });
          text = rows(listing);
          cursor = listing.nextCursor;
        }
        controller.enqueue(encoder.encode(text));
        if (cursor === undefined) controller.close();
      },
    },
    { highWaterMark: 1 },
  );
}
