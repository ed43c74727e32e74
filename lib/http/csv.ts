const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** RFC 4180 quoting, and no spreadsheet formulas: text starting with = + - @ is defused with a quote mark. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A CSV download streamed page by page. The header and the first page are read before this resolves: a bad query or
 * an unreachable database throws here, before any 200 is sent, and becomes a problem+json answer instead of a dropped
 * download. Then pull-based: the next page is read only when the client has taken the previous one, so memory stays
 * at one page whatever the export's size.
 */
export async function streamPagedCsv<P extends { nextCursor?: string }>(
  header: readonly string[],
  readPage: (cursor: string | undefined) => Promise<P>,
  rows: (page: P) => string,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  const first = await readPage(undefined);
  let pending: string | null = `${header.join(",")}\r\n${rows(first)}`;
  let cursor = first.nextCursor;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text: string;
        if (pending !== null) {
          text = pending;
          pending = null;
        } else {
          const page = await readPage(cursor);
          text = rows(page);
          cursor = page.nextCursor;
        }
        controller.enqueue(encoder.encode(text));
        if (cursor === undefined) controller.close();
      },
    },
    { highWaterMark: 1 },
  );
}
