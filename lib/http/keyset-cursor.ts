import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ApiError } from "@/lib/errors/api-error";
import { serverSecret } from "@/lib/config/secrets";

// The /v1 paging convention (docs/contract.md §3): newest first by keyset on (instant, id), and an opaque cursor
// naming where the previous page ended, signed (CURSOR_SECRET) and bound to the filters and the caller's reach. Calls
// (lib/calls/cursor.ts) and audit events page with it, so a client follows both the same way.

/** Where the previous page ended: the last row's (instant, id) in the (instant DESC, id DESC) order. */
export interface KeysetPosition {
  at: Date;
  id: bigint;
}

const MAX_CURSOR_LENGTH = 512;
const SIGNATURE_BYTES = 16;

function sign(payload: string): Buffer {
  return createHmac("sha256", serverSecret("CURSOR_SECRET")).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

/**
 * A short hash of everything that decides which rows a listing may return: the filters and the
 * principal's reach. A cursor carries it so it cannot be replayed on another filter set or key scope.
 */
export function scopeHash(parts: Record<string, string | null | undefined>): string {
  const canonical = JSON.stringify(
    Object.keys(parts)
      .sort()
      .map((k) => [k, parts[k] ?? null]),
  );
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

/** Opaque, signed: base64url(JSON payload) "." base64url(HMAC). */
export function encodeKeysetCursor(position: KeysetPosition, hash: string): string {
  const payload = Buffer.from(
    JSON.stringify({ t: position.at.getTime(), i: position.id.toString(), h: hash }),
  ).toString("base64url");
  return `${payload}.${sign(payload).toString("base64url")}`;
}

function invalid(detail: string): ApiError {
  return new ApiError("invalid_cursor", detail, [{ param: "cursor", message: detail }]);
}

/** The position a cursor encodes; ApiError invalid_cursor when malformed, tampered with, or issued for other filters. */
export function decodeKeysetCursor(cursor: string, hash: string): KeysetPosition {
  const dot = cursor.indexOf(".");
  if (cursor.length > MAX_CURSOR_LENGTH || dot <= 0 || !/^[\w-]+\.[\w-]+$/.test(cursor)) {
    throw invalid("The cursor is malformed. Pass the cursor from nextPageUrl unmodified.");
  }
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), "base64url");
  const expected = sign(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid("The cursor was modified or was not issued by this service.");
  }
  let data: { t?: unknown; i?: unknown; h?: unknown };
  try {
    data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid("The cursor is malformed.");
  }
  if (
    typeof data.t !== "number" ||
    !Number.isSafeInteger(data.t) ||
    typeof data.i !== "string" ||
    !/^\d{1,19}$/.test(data.i)
  ) {
    throw invalid("The cursor is malformed.");
  }
  if (data.h !== hash) {
    throw invalid(
      "The cursor was issued for other filters or another key. Keep the filters of the request that returned it.",
    );
  }
  return { at: new Date(data.t), id: BigInt(data.i) };
}
