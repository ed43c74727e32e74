import type { z } from "zod";
import type { PlatformOnly } from "@/lib/auth/reach";
import type { Scope } from "@/lib/auth/scopes";
import type { ErrorCode } from "@/lib/errors/api-error";

/**
 * What a /v1 operation declares, once, in its concept's operations.ts. `apiRoute` (lib/api/handler.ts) takes it for
 * the route's checks (scope, query, path parameters, JSON body) and lib/api/openapi.ts turns the list of them
 * (lib/api/operations.ts) into the OpenAPI document. This module imports no concept, so every concept may use it.
 */

/** The document's tags and their descriptions, in the order /docs shows them. */
export const OPERATION_TAGS = {
  Calls: "Call detail records",
  Exports: "Background CSV exports of calls",
  Provisioning:
    "Accounts and their money, rate decks and suppliers: the platform's operators, and resellers within their subtree",
  Billing: "Balances, accounts and rates",
  Invoices: "Monthly invoices, credit and debit notes, their PDF and calls",
  Ingest: "Completed calls from switches",
  Keys: "API keys, managed by their holders",
  Alerts: "Low-balance thresholds and webhook endpoints, their test events and delivery log",
  Quality: "ASR, ACD and PDD of outbound calls over sliding windows, and the thresholds that fire quality events",
  Audit: "The append-only log of changes",
  Meta: "This description",
} as const;

export type OperationTag = keyof typeof OPERATION_TAGS;

export interface OperationResponse {
  description: string;
  /** The answer's schema; a schema with a meta id becomes a `$ref` to its component. */
  body: z.ZodType;
  /** `application/json` unless given. */
  contentType?: string;
}

/** Other media types a request body may come in, each with its schema (for the document). */
export type OtherBodies = Readonly<Record<string, z.ZodType>>;

export interface Operation<
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  S extends Scope | null = Scope | null,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  O extends OtherBodies | undefined = OtherBodies | undefined,
> {
  operationId: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** As in the document: `{name}` for a path parameter (the route file's `[name]` folder). */
  path: `/v1/${string}`;
  tag: OperationTag;
  summary: string;
  description: string;
  /** The scope the key must hold; null for the one public operation (the document itself, not behind apiRoute). */
  scope: S;
  /**
   * The platform's own operation (suppliers and buy decks, auto-recharge, erasing calls): apiRoute refuses a caller
   * bound to a billing group with 403 `insufficient_scope` and the refusal's words (lib/auth/reach.ts), whatever its
   * scopes; the document marks it `x-platform-only: true`. The provisioning of accounts is not: a reseller provisions
   * its subtree, decided per account by requireProvisioningOf.
   */
  platformOnly?: PlatformOnly;
  /** Path parameters, checked by apiRoute (a mismatch answers 404 `not_found`). */
  params?: P;
  /**
   * The query string (first value of each name; names it does not know are ignored), checked by apiRoute (a mismatch
   * answers 400 `invalid_parameter`).
   */
  query?: Q;
  /** Names `query` accepts that the document leaves out. */
  undocumentedQuery?: readonly string[];
  /**
   * The JSON request body, required: apiRoute reads it (413 past 5 MiB), parses it and hands the handler its output as
   * `body` (any other Content-Type, text that is not JSON or a mismatch answers 422 `invalid_request_body`), and the
   * document shows it. Not with `otherBodies`: then the handler reads the body itself.
   */
  body?: B;
  /**
   * Other media types the request body may come in (a switch's own encodings, a CSV deck), for the document. Their
   * handler reads and validates the body; apiRoute leaves it alone.
   */
  otherBodies?: O;
  /**
   * Also take the API key as the HTTP Basic password (any user name), for a switch that can send nothing else:
   * FreeSWITCH's mod_json_cdr on POST /v1/cdrs (docs/contract.md §5). apiRoute passes it to authenticate; every
   * other operation answers Basic with 401.
   */
  basicAuth?: boolean;
  /**
   * Takes an `Idempotency-Key` header (lib/idempotency): a POST that creates something or moves money. apiRoute runs
   * the handler once per key and replays its answer; the document lists the header and the 409 answers.
   */
  idempotent?: boolean;
  responses: Partial<Record<"200" | "201" | "202" | "204", OperationResponse>>;
  /**
   * Errors the operation's own code answers. The document adds what apiRoute answers itself: 401, 403, 429, 500, 503
   * for a scoped operation, 400 `invalid_parameter` with a query and 404 `not_found` with path parameters.
   */
  errors?: readonly ErrorCode[];
}

/** Declares an operation, keeping its schemas' types and whether it has a scope, for apiRoute. */
export function defineOperation<
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  S extends Scope | null = Scope,
  B extends z.ZodType | undefined = undefined,
  O extends OtherBodies | undefined = undefined,
>(operation: Operation<Q, P, S, B, O>): Operation<Q, P, S, B, O> {
  return operation;
}
