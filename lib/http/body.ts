import { ApiError } from "@/lib/errors/api-error";

/** docs/contract.md §6: request bodies over 5 MiB answer 413. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    "payload_too_large",
    `The request body exceeds ${maxBytes} bytes (${Math.round(maxBytes / 1024 / 1024)} MiB).`,
  );
}

/** `application/json` or any `+json` type; a missing Content-Type is not accepted either. */
export function isJsonContentType(contentType: string | null): boolean {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[\w.-]+\+json$/.test(mediaType);
}

/**
 * The request body as text, refused with 413 past `maxBytes`. Content-Length is checked first,
 * then the bytes actually read (a chunked or lying client cannot get past the cap), so at most
 * `maxBytes` plus one chunk is ever held in memory.
 */
export async function readBodyText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

export interface JsonBodyOptions {
  maxBytes?: number;
  /** What an empty body should have held, for the error's detail. */
  expected?: string;
}

/** Every request body's 422, whatever the route (docs/contract.md §3). */
const code = "invalid_request_body";

/**
 * JSON text parsed, or 422 `invalid_request_body`: empty, or not JSON (the parser's message names the position only;
 * RangeError for absurd nesting lands here too).
 */
export function parseJsonText(text: string, options: JsonBodyOptions = {}): unknown {
  if (text.trim() === "") {
    throw new ApiError(code, `The request body is empty: send ${options.expected ?? "a JSON object"}.`, [
      { param: "(body)", message: "empty" },
    ]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const message = e instanceof SyntaxError ? e.message : "the JSON is nested too deeply";
    throw new ApiError(code, "The request body is not valid JSON.", [
      { param: "(body)", message: message.slice(0, 200) },
    ]);
  }
}

/** 422 unless the Content-Type is JSON (a cross-site form cannot post JSON with a session cookie). */
export function assertJsonContentType(request: Request): void {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new ApiError(code, "The request body must be JSON, sent with `Content-Type: application/json`.", [
      { param: "content-type", message: "expected application/json" },
    ]);
  }
}

/**
 * A JSON request body: 413 past the size cap, 422 `invalid_request_body` for another Content-Type or for text that is
 * not JSON.
 */
export async function readJsonBody(request: Request, options: JsonBodyOptions = {}): Promise<unknown> {
  assertJsonContentType(request);
  return parseJsonText(await readBodyText(request, options.maxBytes), options);
}
