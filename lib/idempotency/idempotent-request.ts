import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";

// Stripe's rule for POSTs that create something or move money (README "Idempotent requests"): a request sent with an
// `Idempotency-Key` header runs once per (API key, idempotency key) within 24 hours; a retry with the same method, path
// and body gets the first answer again (status and body, with `Idempotent-Replayed: true`); the same key with another
// request answers 409 `idempotency_key_reused`, and one while the first is still running 409 `idempotency_key_in_use`
// (with Retry-After: the client retries, nothing waits on the server). First writer wins on the table's primary key,
// so this holds across app processes.

/** How long a key and its answer are kept. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/**
 * How long a request may hold its key before another may take it over: longer than any request runs, so only a
 * process that died mid-request leaves a lock that lapses. The retry then runs again (README says what that means).
 */
export const IDEMPOTENCY_LOCK_SECONDS = 60;
/** Stripe allows up to 255 characters. */
const MAX_KEY_LENGTH = 255;

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** Answer headers replayed with the stored body (the request id, rate limits and cookies are the retry's own). */
const KEPT_HEADERS = ["content-type", "cache-control", "location", "content-disposition"];

/** The header's value, undefined when absent; 400 naming the header when it is empty, too long or not printable ASCII. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const value = request.headers.get(IDEMPOTENCY_HEADER);
  if (value === null) return undefined;
  if (value.length === 0 || value.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw new ApiError("invalid_parameter", "The Idempotency-Key header is malformed.", [
      {
        param: IDEMPOTENCY_HEADER,
        message: `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters without spaces (a V4 UUID is a good key)`,
      },
    ]);
  }
  return value;
}

/** JSON with object keys sorted at every depth: two bodies that differ only in spacing or key order are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A hash of the canonical request: method, path, query (sorted) and body (canonical JSON when it parses). */
export function requestFingerprint(method: string, url: URL, bodyText: string): string {
  const query = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let body = bodyText;
  try {
    body = canonicalJson(JSON.parse(bodyText));
  } catch {
    // Not JSON: the bytes as sent.
  }
  return createHash("sha256")
    .update(JSON.stringify([method.toUpperCase(), url.pathname, query, body]))
    .digest("base64url");
}

interface StoredRow {
  request_hash: string;
  status: number | null;
  response_headers: string | null;
  response_body: string | null;
}

/** Takes the key for this request, or answers what holds it. A lapsed lock or an expired answer is taken over. */
async function claim(db: Db, keyId: string, key: string, hash: string): Promise<StoredRow | "claimed"> {
  const window = `${IDEMPOTENCY_WINDOW_HOURS} hours`;
  const lock = `${IDEMPOTENCY_LOCK_SECONDS} seconds`;
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await queryRows<{ key_id: string }>(
      db,
      sql`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, locked_until)
          VALUES (${keyId}, ${key}, ${hash}, now() + ${lock}::interval)
          ON CONFLICT (key_id, idempotency_key) DO UPDATE
            SET request_hash = excluded.request_hash, status = NULL, response_headers = NULL, response_body = NULL,
                locked_until = excluded.locked_until, created_at = now()
            WHERE idempotency_keys.created_at < now() - ${window}::interval
               OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until < now()
                   AND idempotency_keys.request_hash = excluded.request_hash)
          RETURNING key_id`,
    );
    if (taken.length > 0) return "claimed";
    const [held] = await queryRows<StoredRow>(
      db,
      sql`SELECT request_hash, status, response_headers, response_body FROM idempotency_keys
          WHERE key_id = ${keyId} AND idempotency_key = ${key}`,
    );
    if (held) return held; // else deleted in between (expired): try again
  }
  throw new Error("idempotency key neither claimed nor found");
}

function replay(row: StoredRow & { status: number }): Response {
  const headers = new Headers(row.response_headers ? (JSON.parse(row.response_headers) as Record<string, string>) : {});
  headers.set(REPLAYED_HEADER, "true");
  return new Response(row.response_body ?? "", { status: row.status, headers });
}

/** Rolls the change back when the answer is not kept (5xx): carries that answer out of the transaction. */
class NotKept extends Error {
  constructor(readonly response: Response) {
    super("answer not kept");
  }
}

/**
 * Runs `run` once per (keyId, key): the first request's answer is stored and replayed to every retry with the same
 * fingerprint for 24 hours. `run` answers a Response (errors already rendered). The claim of the key commits first (a
 * concurrent retry sees it in use); `run` then gets a transaction, and its answer is stored in that same transaction,
 * so the change and its stored answer commit together: a process that dies in between leaves neither, and the retry
 * (once the lock lapses) runs again without doing the change twice. The domain's own transactions inside `run` become
 * savepoints of it. An answer of 500 or more is not kept (nothing was done, or it cannot be told): its transaction
 * rolls back, the key is released and a retry runs again, as 429s and 5xx may be retried.
 */
export async function runIdempotent(
  db: Db,
  request: { keyId: string; key: string; fingerprint: string },
  run: (tx: Db) => Promise<Response>,
): Promise<Response> {
  const held = await claim(db, request.keyId, request.key, request.fingerprint);
  if (held !== "claimed") {
    if (held.request_hash !== request.fingerprint) {
      throw new ApiError(
        "idempotency_key_reused",
        "This Idempotency-Key was used with another request (method, path or body) in the last 24 hours. " +
          "Use a new key for a new request.",
        [{ param: IDEMPOTENCY_HEADER, message: "already used with another request" }],
      );
    }
    if (held.status === null) {
      throw new ApiError(
        "idempotency_key_in_use",
        "A request with this Idempotency-Key is still in progress. Retry shortly for its answer.",
        [{ param: IDEMPOTENCY_HEADER, message: "a request with this key is in progress" }],
        { "Retry-After": "1" },
      );
    }
    return replay({ ...held, status: held.status });
  }
  try {
    return await db.transaction(async (tx) => {
      const response = await run(tx);
      if (response.status >= 500) throw new NotKept(response);
      const body = await response.text();
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      await tx.execute(
        sql`UPDATE idempotency_keys SET status = ${response.status}, response_headers = ${JSON.stringify(headers)},
              response_body = ${body}
            WHERE key_id = ${request.keyId} AND idempotency_key = ${request.key}
              AND request_hash = ${request.fingerprint}`,
      );
      return new Response(body, { status: response.status, headers: response.headers });
    });
  } catch (error) {
    await release(db, request);
    if (error instanceof NotKept) return error.response;
    throw error;
  }
}

async function release(db: Db, request: { keyId: string; key: string; fingerprint: string }): Promise<void> {
  await db.execute(
    sql`DELETE FROM idempotency_keys
        WHERE key_id = ${request.keyId} AND idempotency_key = ${request.key} AND request_hash = ${request.fingerprint}
          AND status IS NULL`,
  );
}

/** Deletes keys past the 24-hour window (they are ignored already); answers how many. Run periodically. */
export async function deleteExpiredIdempotencyKeys(db: Db): Promise<number> {
  const rows = await queryRows<{ key_id: string }>(
    db,
    sql`DELETE FROM idempotency_keys WHERE created_at < now() - ${`${IDEMPOTENCY_WINDOW_HOURS} hours`}::interval
        RETURNING key_id`,
  );
  return rows.length;
}
