import { createHmac, timingSafeEqual } from "node:crypto";
import { serverSecret } from "@/lib/config/secrets";
import { ApiError } from "@/lib/errors/api-error";

/** How long a download link works after GET /v1/exports/{id} handed it out. */
export const DOWNLOAD_LINK_SECONDS = 3_600;

// Signed with the cursor secret (shared by every app process, like cursors), under its own label so that no cursor
// signature is ever a link's.
function signature(exportId: string, expires: number): string {
  return createHmac("sha256", serverSecret("CURSOR_SECRET"))
    .update(`export-download\n${exportId}\n${expires}`)
    .digest()
    .subarray(0, 16)
    .toString("base64url");
}

/** The download link of an export: valid until `expiresAt`, and only with the key that started the export. */
export function downloadLink(origin: string, exportId: string, expiresAt: Date): { url: string; expiresAt: string } {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const url = new URL(`/v1/exports/${encodeURIComponent(exportId)}/download`, origin);
  url.searchParams.set("expires", String(expires));
  url.searchParams.set("signature", signature(exportId, expires));
  return { url: url.toString(), expiresAt: new Date(expires * 1000).toISOString() };
}

/**
 * Checks a link's query: 404 when the signature is not this export's (altered, or made up), 410 `link_expired` once
 * its time has passed (a fresh link comes with the next GET /v1/exports/{id}).
 */
export function checkDownloadLink(exportId: string, expires: string, given: string, now = Date.now()): void {
  const seconds = Number(expires);
  const expected = Buffer.from(signature(exportId, seconds));
  const actual = Buffer.from(given);
  if (!Number.isSafeInteger(seconds) || actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new ApiError("not_found", "No such download link: use the `download.url` of GET /v1/exports/{id}.");
  }
  if (seconds * 1000 <= now) {
    throw new ApiError(
      "link_expired",
      "This download link has expired. GET /v1/exports/{id} again for a new one (the file is kept until the export's `expiresAt`).",
    );
  }
}
