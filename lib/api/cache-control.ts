/**
 * Next.js gzips every answer whose client accepts gzip (its compression middleware), also answers of a few hundred
 * bytes: it never sees their length, because it strips the Content-Length of a route handler's Response, so the
 * middleware's 1 KiB threshold cannot apply. Deflating a small answer costs the server a zlib stream per request and saves
 * the client nothing: without it, single-call ingest served a third more calls per second (issue 12). `no-transform` turns the middleware off
 * for them (and tells a proxy not to recompress them). Answers of 1 KiB and more are still compressed for whoever asks.
 */
export const COMPRESS_FROM_BYTES = 1024;

/** The Cache-Control of an uncacheable answer with this body. */
export function noStoreCacheControl(body: string): string {
  // A UTF-8 body is at least as long in bytes as in UTF-16 code units: measure only near the threshold.
  const small = body.length < COMPRESS_FROM_BYTES && (body.length * 3 < COMPRESS_FROM_BYTES || Buffer.byteLength(body) < COMPRESS_FROM_BYTES);
  return small ? "no-store, no-transform" : "no-store";
}
