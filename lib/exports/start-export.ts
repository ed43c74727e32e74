import { sql } from "drizzle-orm";
import { canReadCost, type Principal } from "@/lib/auth/principal";
import { ownGroup, reachOf } from "@/lib/auth/reach";
import { assertSupplierFilterAllowed, callFiltersFromQuery } from "@/lib/calls/list-calls";
import { DEFAULT_PAGE_SIZE } from "@/lib/calls/schemas";
import { queryRows, type Executor } from "@/lib/db/client";
import { newId } from "@/lib/ids/ids";
import { exportRowToAnswer, type ExportRow } from "./export-row";
import type { Export, ExportFilters } from "./schemas";

/** How long an export and its file are kept. */
export const EXPORT_KEEP_HOURS = 24;

/** The filters as the listing reads them (the export's own normalisation is the listing's). */
export function exportCallFilters(filters: ExportFilters) {
  return callFiltersFromQuery({ ...filters, pageSize: DEFAULT_PAGE_SIZE });
}

/**
 * Queues a CSV export of the calls `filters` match, as `principal` sees them (its group, and the cost columns only
 * with calls:read_cost: decided now, by the key that asked). A worker (run-exports.ts) writes the file.
 */
export async function startExport(db: Executor, principal: Principal, filters: ExportFilters): Promise<Export> {
  assertSupplierFilterAllowed(principal, exportCallFilters(filters));
  const kept = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== ""));
  const [row] = await queryRows<ExportRow>(
    db,
    sql`INSERT INTO exports (id, key_id, billing_group_id, with_cost, filters, expires_at)
        VALUES (${newId("exp")}, ${principal.keyId}, ${ownGroup(reachOf(principal))}, ${canReadCost(principal)},
                ${JSON.stringify(kept)}, now() + ${`${EXPORT_KEEP_HOURS} hours`}::interval)
        RETURNING *`,
  );
  return exportRowToAnswer(row, null);
}
