const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "57P01", // admin_shutdown (pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08003",
  "08006",
  "53300", // too_many_connections
]);

/** True when the error means "the database is not reachable right now", which maps to 503. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/i.test(message)) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
