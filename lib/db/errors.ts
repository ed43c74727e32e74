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

/** An error and up to three causes below it (drivers wrap the socket error). */
function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    yield e as { code?: unknown; message?: unknown };
    e = (e as { cause?: unknown }).cause;
  }
}

const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/i;

/** True when the error means "the database is not reachable right now", which maps to 503. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causes(error)) {
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

const RETRYABLE = new Set(["40P01", "40001"]); // deadlock detected, serialization failure

/** Runs a transaction again when PostgreSQL aborted it for a deadlock or serialization failure. */
export async function withRetry<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isRetryable(e)) throw e;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}

function isRetryable(error: unknown): boolean {
  for (const { code } of causes(error)) if (typeof code === "string" && RETRYABLE.has(code)) return true;
  return false;
}

/** True for a unique constraint's refusal (SQLSTATE 23505), on either driver; `constraint` narrows it to one index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (const cause of causes(error)) {
    const { code } = cause;
    if (code !== "23505") continue;
    const name = (cause as { constraint?: unknown }).constraint;
    if (constraint === undefined || name === undefined || name === constraint) return true;
  }
  return false;
}
