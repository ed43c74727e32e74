import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { DOWNLOAD_LINK_SECONDS, downloadLink } from "./download-link";
import { exportRowToAnswer, type ExportRow } from "./export-row";
import type { Export } from "./schemas";

/**
 * The export `id` if `principal`'s key started it (a key sees only its own exports; any other id answers 404, so
 * existence does not leak) and it has not expired.
 */
export async function findOwnExport(db: Executor, principal: Principal, id: string): Promise<ExportRow> {
  const wellFormed = /^exp_[0-9a-z]{1,64}$/.test(id);
  const [row] = wellFormed
    ? await queryRows<ExportRow>(
        db,
        sql`SELECT * FROM exports WHERE id = ${id} AND key_id = ${principal.keyId} AND expires_at > now()`,
      )
    : [];
  if (!row) throw new ApiError("not_found", `No export with id ${JSON.stringify(id.slice(0, 64))}.`);
  return row;
}

/** GET /v1/exports/{id}: status and progress, and once the file is ready a download link signed now (1 hour). */
export async function getExport(
  db: Executor,
  principal: Principal,
  id: string,
  origin: string,
  now = Date.now(),
): Promise<Export> {
  const row = await findOwnExport(db, principal, id);
  // The link never outlives the file.
  const until = Math.min(now + DOWNLOAD_LINK_SECONDS * 1000, new Date(row.expires_at).getTime());
  return exportRowToAnswer(row, downloadLink(origin, row.id, new Date(until)));
}
