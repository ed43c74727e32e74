import { z } from "zod";

/** The one table of API errors (docs/contract.md §3). Handlers throw ApiError; the wrapper renders it. */
export const ERROR_TABLE = {
  unauthorized: { status: 401, title: "Unauthorized" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  cross_origin: { status: 403, title: "Cross-origin request refused" },
  two_factor_required: { status: 403, title: "Second factor required" },
  not_found: { status: 404, title: "Not found" },
  no_rate: { status: 404, title: "No rate for destination" },
  invalid_parameter: { status: 400, title: "Invalid parameter" },
  invalid_cursor: { status: 400, title: "Invalid cursor" },
  billing_group_required: { status: 400, title: "Billing group required" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused with another request" },
  idempotency_key_in_use: { status: 409, title: "Request with this idempotency key in progress" },
  // The one 422 of every request body (a CDR, an authorization, a key, provisioning, alerts, exports): docs/contract.md
  // §3 names the codes it replaced (invalid_body, invalid_authorization_request, invalid_key_request).
  invalid_request_body: { status: 422, title: "Unprocessable request body" },
  // A new account's parent refused (docs/contract.md "Reseller tiers"): none with that id, or another currency.
  unknown_parent: { status: 422, title: "Unknown parent account" },
  currency_mismatch: { status: 422, title: "Currency differs from the parent account's" },
  // A child account's sell deck with rates below its parent's own (the margin guard, docs/contract.md "Reseller
  // tiers"): nothing imported; `allowBelowCost=true` imports it anyway.
  below_cost: { status: 422, title: "Rates below the parent's cost" },
  link_expired: { status: 410, title: "Download link expired" },
  insufficient_balance: { status: 402, title: "Insufficient balance" },
  // A reseller's top-up or adjustment of its customer that its own balance plus credit limit does not cover
  // (docs/contract.md "Reseller tiers"): nothing moved.
  insufficient_funds: { status: 402, title: "Insufficient funds" },
  // An authorization a limit of the account refused (lib/limits, docs/contract.md "Limits"): nothing was reserved.
  daily_spend_limit: { status: 402, title: "Daily spend limit reached" },
  monthly_spend_limit: { status: 402, title: "Monthly spend limit reached" },
  destination_blocked: { status: 403, title: "Destination blocked by the account's limits" },
  destination_not_allowed: { status: 403, title: "Destination outside the account's allowed prefixes" },
  concurrent_calls_limit: { status: 429, title: "Concurrent call limit reached" },
  calls_per_second_limit: { status: 429, title: "Calls per second limit reached" },
  velocity_limit: { status: 429, title: "Velocity limit reached" },
  payload_too_large: { status: 413, title: "Payload too large" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal: { status: 500, title: "Internal error" },
  unavailable: { status: 503, title: "Service unavailable" },
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface ParamError {
  param: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: ParamError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.status = ERROR_TABLE[code].status;
  }
}

export const problemSchema = z
  .object({
    type: z.string().describe("URI naming the error kind"),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_TABLE) as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string().optional(),
    errors: z.array(z.object({ param: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details" });

export type Problem = z.infer<typeof problemSchema>;

export function problemBody(error: ApiError, requestId?: string): Problem {
  return {
    type: `https://docs.callbook.dev/errors/${error.code}`,
    title: ERROR_TABLE[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    ...(requestId ? { requestId } : {}),
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** zod issues -> `errors[]` with the query parameter's name as the client wrote it. */
export function paramErrors(issues: readonly z.core.$ZodIssue[]): ParamError[] {
  return issues.map((issue) => ({
    param: issue.path.map(String).join(".") || "(query)",
    message: issue.message,
  }));
}

/**
 * zod issues of a JSON body -> `errors[]`, each naming its field by path (`filters.direction`): a field the schema does
 * not know is named itself, and a rule about the whole body is `(body)`.
 */
export function bodyParamErrors(issues: readonly z.core.$ZodIssue[]): ParamError[] {
  return issues.flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ param: [...at, key].join("."), message: "is not a field of this request" }));
    }
    return [{ param: at.join(".") || "(body)", message: issue.message }];
  });
}
