import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { authenticate, CredentialRefused } from "@/lib/auth/authenticate";
import { recordAuthFailure } from "@/lib/auth/failure-limit";
import { principalCacheFor } from "@/lib/auth/principal-cache";
import type { Principal } from "@/lib/auth/principal";
import type { Scope } from "@/lib/auth/scopes";
import { logRequests } from "@/lib/config/env";
import type { Operation, OtherBodies } from "@/lib/openapi/operation";
import { assertOperationAllowed } from "@/lib/openapi/operation-allowed";
import { getDb, type Db } from "@/lib/db/client";
import { ApiError, bodyParamErrors, paramErrors } from "@/lib/errors/api-error";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { readDbFor } from "@/lib/db/read-replica";
import { rateLimiter } from "@/lib/http/rate-limit";
import { assertJsonContentType, parseJsonText, readBodyText } from "@/lib/http/body";
import { queryObject } from "@/lib/http/query-params";
import { idempotencyKeyOf, requestFingerprint, runIdempotent } from "@/lib/idempotency/idempotent-request";
import { json, problemResponse } from "@/lib/http/json-response";
import { noteKeyUse } from "@/lib/keys/last-used";

// The answers' builders live in lib/http/json-response.ts (the bench floor uses them without this module's
// dependencies).
export { json, jsonText, problemResponse } from "@/lib/http/json-response";

export interface ApiContext<Q, P, B = undefined> {
  request: Request;
  requestId: string;
  principal: Principal;
  db: Db;
  /** For listing reads that may be served by the replica (lib/db/read-replica.ts); the primary without one. */
  readDb: () => Promise<Db>;
  query: Q;
  params: P;
  /** The operation's JSON `body`, parsed (undefined without one, or when the handler reads its own: `otherBodies`). */
  body: B;
}

type Infer<S, Otherwise> = S extends z.ZodType ? z.output<S> : Otherwise;
type BodyOf<B, O> = O extends OtherBodies ? undefined : Infer<B, undefined>;
type RouteContext<P> = { params: Promise<P> };

/** The operation each handler apiRoute made serves, for the test that pairs route files with operations. */
const servedOperations = new WeakMap<object, Operation>();

export function operationOf(handler: unknown): Operation | undefined {
  return typeof handler === "function" ? servedOperations.get(handler) : undefined;
}

/**
 * The operation's JSON body: 422 `invalid_request_body` for another Content-Type, text that is not JSON, or a body
 * its schema refuses (`errors[].param` the field's path); 413 past the size cap. `text` when apiRoute has read it
 * already (for an Idempotency-Key's fingerprint), so the stream is read once.
 */
async function parseBody(schema: z.ZodType, request: Request, text: string | undefined): Promise<unknown> {
  assertJsonContentType(request);
  const parsed = schema.safeParse(parseJsonText(text ?? (await readBodyText(request))));
  if (!parsed.success) {
    throw new ApiError("invalid_request_body", "The request body is invalid.", bodyParamErrors(parsed.error.issues));
  }
  return parsed.data;
}

function logLine(fields: Record<string, unknown>): void {
  if (!logRequests()) return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}

/**
 * The one wrapper every /v1 handler goes through: request id, authentication (API key or
 * session; refused credentials limited per client address), scope check, rate limit, query, path and JSON body
 * validation (all as the operation declares them), and the mapping of every error to problem+json.
 * Handlers stay thin: parse, call one domain function, return JSON.
 */
export function apiRoute<
  Q extends z.ZodObject | undefined,
  P extends z.ZodObject | undefined,
  B extends z.ZodType | undefined = undefined,
  O extends OtherBodies | undefined = undefined,
>(
  operation: Operation<Q, P, Scope, B, O>,
  handler: (
    ctx: ApiContext<Infer<Q, Record<string, never>>, Infer<P, Record<string, string>>, BodyOf<B, O>>,
  ) => Promise<Response | object>,
) {
  type Query = Infer<Q, Record<string, never>>;
  type Params = Infer<P, Record<string, string>>;
  type Body = BodyOf<B, O>;
  // A body in another media type (a switch's form post, a CSV deck) is its handler's to read.
  const bodySchema = operation.otherBodies === undefined ? operation.body : undefined;
  const served = async (request: Request, routeContext?: RouteContext<Params>): Promise<Response> => {
    const started = performance.now();
    const requestId =
      request.headers
        .get("x-request-id")
        ?.slice(0, 64)
        .replace(/[^\w.-]/g, "") || randomUUID();
    const url = new URL(request.url);
    let response: Response;
    let keyId: string | undefined;
    try {
      const db = await getDb();
      const principal = await authenticate(request, db, principalCacheFor(db), {
        basic: operation.basicAuth === true,
      }).catch(async (error: unknown) => {
        // A refused credential counts against the client's address; past its allowance the answer is a 429.
        if (error instanceof CredentialRefused) await recordAuthFailure(request.headers);
        throw error;
      });
      keyId = principal.keyId;
      // In the background, at most once a minute per key and process (lib/keys/last-used.ts).
      void noteKeyUse(db, principal);
      const limiter = rateLimiter();
      let limitHeaders: Record<string, string> | undefined;
      if (limiter.enabled) {
        const d = await limiter.take(principal.keyId);
        limitHeaders = {
          "RateLimit-Limit": String(d.limit),
          "RateLimit-Remaining": String(d.remaining),
          "RateLimit-Reset": String(d.resetSeconds),
        };
        if (!d.allowed) {
          throw new ApiError("rate_limited", `Rate limit of ${limiter.ratePerSecond} requests/s exceeded.`, undefined, {
            ...limitHeaders,
            "Retry-After": String(d.retryAfterSeconds),
          });
        }
      }
      assertOperationAllowed(operation, principal);
      let query = {} as Query;
      if (operation.query) {
        const parsed = operation.query.safeParse(queryObject(url.searchParams));
        if (!parsed.success) {
          throw new ApiError(
            "invalid_parameter",
            "One or more query parameters are invalid.",
            paramErrors(parsed.error.issues),
          );
        }
        query = parsed.data as Query;
      }
      let params = (routeContext ? await routeContext.params : {}) as Params;
      if (operation.params) {
        const parsed = operation.params.safeParse(params);
        if (!parsed.success) throw new ApiError("not_found", `No such resource: ${url.pathname.slice(0, 200)}.`);
        params = parsed.data as Params;
      }
      const idempotencyKey = operation.idempotent ? idempotencyKeyOf(request) : undefined;
      // Read once when a fingerprint needs it: from the request itself when apiRoute parses the body, else from a
      // copy (the handler reads the request's own).
      const bodyText =
        idempotencyKey === undefined ? undefined : await readBodyText(bodySchema ? request : request.clone());
      const run = async (executor: Db): Promise<Response> => {
        // Inside run, as the handler's own errors are: a 422 is stored and replayed under its Idempotency-Key.
        const body = (bodySchema ? await parseBody(bodySchema, request, bodyText) : undefined) as Body;
        const result = await handler({
          request,
          requestId,
          principal,
          db: executor,
          readDb: () => readDbFor(executor, principal.billingGroupId),
          query,
          params,
          body,
        });
        return result instanceof Response ? result : json(result);
      };
      if (idempotencyKey === undefined || bodyText === undefined) {
        response = await run(db);
      } else {
        const fingerprint = requestFingerprint(request.method, url, bodyText);
        // Errors the handler throws are rendered inside, so a 4xx answer is stored and replayed like any other. The
        // handler's database is the transaction that also stores its answer (lib/idempotency).
        response = await runIdempotent(db, { keyId: principal.keyId, key: idempotencyKey, fingerprint }, (tx) =>
          run(tx).catch((error: unknown) => problemResponse(toApiError(error, requestId), requestId)),
        );
      }
      if (limitHeaders) for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v);
    } catch (error) {
      response = problemResponse(toApiError(error, requestId), requestId);
    }
    response.headers.set("X-Request-Id", requestId);
    logLine({
      requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      keyId,
    });
    return response;
  };
  servedOperations.set(served, operation);
  return served;
}

export function toApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) {
    return new ApiError("unavailable", "The database is unreachable. Retry shortly.", undefined, {
      "Retry-After": "1",
    });
  }
  // Never leak stack traces or SQL: the detail goes to the log, the client gets the request id.
  process.stderr.write(`${JSON.stringify({ requestId, error: String((error as Error)?.stack ?? error) })}\n`);
  return new ApiError("internal", `An unexpected error occurred. Quote request id ${requestId} when reporting it.`);
}
