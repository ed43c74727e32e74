import { problemBody, type ApiError } from "@/lib/errors/api-error";

/**
 * Next.js gzips every answer for a client that accepts gzip, even one of a few hundred bytes: it strips a route
 * handler's Content-Length, so its compression middleware never applies its 1 KiB threshold. A zlib stream per small
 * answer costs the server and saves the client nothing (without it, single-call ingest served a third more calls per
 * second in `npm run bench`). Answers below this size carry `no-transform`, which turns the middleware off (and tells
 * a proxy not to recompress them); larger ones are still compressed for whoever asks.
 */
export const COMPRESS_FROM_BYTES = 1024;

/** The Cache-Control of an uncacheable answer with this body. */
export function noStoreCacheControl(body: string): string {
  // A UTF-8 body is at least as long in bytes as in UTF-16 code units: measure only near the threshold.
  const small =
    body.length < COMPRESS_FROM_BYTES &&
    (body.length * 3 < COMPRESS_FROM_BYTES || Buffer.byteLength(body) < COMPRESS_FROM_BYTES);
  return small ? "no-store, no-transform" : "no-store";
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

/** A JSON answer whose body is JSON text already (e.g. built by the database), with json()'s headers. */
export function jsonText(body: string, status = 200, headers?: Record<string, string>): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "application/json", "cache-control": noStoreCacheControl(body), ...headers },
  });
}

export function problemResponse(error: ApiError, requestId: string): Response {
  const body = JSON.stringify(problemBody(error, requestId));
  return new Response(body, {
    status: error.status,
    headers: {
      "content-type": "application/problem+json",
      "cache-control": noStoreCacheControl(body),
      ...error.headers,
    },
  });
}
