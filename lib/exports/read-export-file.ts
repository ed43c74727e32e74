import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { checkDownloadLink } from "./download-link";
import { findOwnExport } from "./get-export";

/**
 * The finished CSV of an export, streamed chunk by chunk from the database (one page of calls each, so memory holds
 * one chunk whatever the file's size). The link must be signed for this export and not expired (410), and the key
 * must be the one that started it (404 otherwise); a file not finished yet answers 409.
 */
export async function readExportFile(
  db: Db,
  principal: Principal,
  id: string,
  link: { expires: string; signature: string },
): Promise<{ stream: ReadableStream<Uint8Array>; createdAt: Date }> {
  checkDownloadLink(id, link.expires, link.signature);
  const row = await findOwnExport(db, principal, id);
  if (row.status !== "succeeded") {
    throw new ApiError("conflict", `The export is ${row.status}: its file is not ready.`);
  }
  const encoder = new TextEncoder();
  let seq = 0;
  const chunks = row.chunks;
  return {
    createdAt: new Date(row.created_at),
    stream: new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const [chunk] = await queryRows<{ body: string }>(
            db,
            sql`SELECT body FROM export_chunks WHERE export_id = ${id} AND seq = ${seq}`,
          );
          // Deleted meanwhile (the export expired): end the download short rather than hang.
          if (!chunk) return controller.error(new Error(`export ${id} lost chunk ${seq}`));
          controller.enqueue(encoder.encode(chunk.body));
          seq++;
          if (seq >= chunks) controller.close();
        },
      },
      { highWaterMark: 1 },
    ),
  };
}
