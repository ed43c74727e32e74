import { decodeKeysetCursor, encodeKeysetCursor } from "@/lib/http/keyset-cursor";

// A call listing's cursor: the /v1 keyset cursor (lib/http/keyset-cursor.ts) on (start_time, id).
export { scopeHash } from "@/lib/http/keyset-cursor";

/** Where the previous page ended: the last row's (startTime, id) in the (startTime DESC, id DESC) order. */
export interface CursorPosition {
  startTime: Date;
  id: bigint;
}

export function encodeCursor(position: CursorPosition, hash: string): string {
  return encodeKeysetCursor({ at: position.startTime, id: position.id }, hash);
}

/** The position a cursor encodes; ApiError invalid_cursor when malformed, tampered with, or issued for other filters. */
export function decodeCursor(cursor: string, hash: string): CursorPosition {
  const { at, id } = decodeKeysetCursor(cursor, hash);
  return { startTime: at, id };
}
