import { z } from "zod";
import { accountListSchema, accountSchema, balanceSchema } from "@/lib/billing/schemas";
import { rateQuerySchema, rateSchema } from "@/lib/rating/schemas";
import {
  callDetailSchema,
  callDetailWithCostSchema,
  callPageSchema,
  callSchema,
  callWithCostSchema,
  listCallsQuerySchema,
} from "@/lib/calls/schemas";
import {
  usageQuerySchema,
  usageReportSchema,
  usageRowSchema,
  usageRowWithCostSchema,
  usageTotalSchema,
  usageTotalWithCostSchema,
} from "@/lib/usage/schemas";
import { ERROR_TABLE, problemSchema, type ErrorCode } from "@/lib/errors/api-error";
import { OPENAPI_AUTHORIZATIONS } from "./openapi-authorizations";
import { OPENAPI_INGEST } from "./openapi-ingest";
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiParameter } from "./openapi-types";

/**
 * The OpenAPI 3.1 document of /v1, generated from the zod schemas the handlers validate and
 * produce with, so the document cannot drift from the code. Served at /v1/openapi.json and
 * rendered at /docs.
 */

type ZodObjectLike = z.ZodObject<z.ZodRawShape>;

const ref = (id: string): JsonSchema => ({ $ref: `#/components/schemas/${id}` });

/** Strips what is noise inside an OpenAPI document: `$schema`, and zod's long regexes next to a `format`. */
function tidy(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$schema" || k === "$id") continue;
    if (k === "pattern" && typeof schema.format === "string") continue;
    // zod's safe-integer bounds on every .int(): true, but noise to a reader.
    if ((k === "minimum" || k === "maximum") && Math.abs(Number(v)) === Number.MAX_SAFE_INTEGER) continue;
    if (Array.isArray(v)) out[k] = v.map((x) => (x && typeof x === "object" ? tidy(x as JsonSchema) : x));
    else if (v && typeof v === "object") out[k] = tidy(v as JsonSchema);
    else out[k] = v;
  }
  return out;
}

/** Component schemas: every schema carrying a meta id, converted once; nested ones become $refs. */
function componentSchemas(io: "input" | "output", schemas: z.ZodType[]): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const s of schemas) {
    const id = z.globalRegistry.get(s)?.id;
    if (!id) throw new Error("every OpenAPI component schema needs .meta({ id })");
    registry.add(s, { id });
  }
  const result = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const out: Record<string, JsonSchema> = {};
  for (const [id, s] of Object.entries(result.schemas)) out[id] = tidy(s);
  return out;
}

/** Query parameters from the handler's own query schema: names, required-ness, types, defaults. */
function queryParameters(schema: ZodObjectLike): OpenApiParameter[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const json = tidy(
      z.toJSONSchema(field as z.ZodType, {
        target: "draft-2020-12",
        io: "output",
        unrepresentable: "any",
      }) as JsonSchema,
    );
    const description = typeof json.description === "string" ? json.description : undefined;
    delete json.description;
    return {
      name,
      in: "query",
      required: !(field as z.ZodType).safeParse(undefined).success,
      description,
      schema: json,
    };
  });
}

const PROBLEM = "application/problem+json";

function problem(
  status: number,
  codes: ErrorCode[],
): { description: string; content: Record<string, { schema: JsonSchema }> } {
  const lines = codes.map((c) => `\`${c}\``).join(", ");
  return {
    description: `${ERROR_TABLE[codes[0]].title}: ${lines}`,
    content: {
      [PROBLEM]: {
        schema: { allOf: [ref("Problem"), { properties: { status: { const: status }, code: { enum: codes } } }] },
      },
    },
  };
}

/** Errors every authenticated /v1 operation can answer (docs/contract.md §3 and §6). */
function commonErrors(extra: Record<string, ErrorCode[]> = {}): OpenApiOperation["responses"] {
  const responses: OpenApiOperation["responses"] = {
    "401": problem(401, ["unauthorized"]),
    "403": problem(403, ["insufficient_scope"]),
    "429": problem(429, ["rate_limited"]),
    "500": problem(500, ["internal"]),
    "503": problem(503, ["unavailable"]),
  };
  responses["401"].headers = { "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" } };
  responses["429"].headers = { "Retry-After": { $ref: "#/components/headers/Retry-After" } };
  for (const [status, codes] of Object.entries(extra)) responses[status] = problem(Number(status), codes);
  return responses;
}

const STANDARD_HEADERS = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
};

function ok(description: string, schema: JsonSchema, status = "200"): OpenApiOperation["responses"] {
  return { [status]: { description, headers: STANDARD_HEADERS, content: { "application/json": { schema } } } };
}

const oneOf = (...ids: string[]): JsonSchema => ({ oneOf: ids.map(ref) });

const idParameter = (description: string): OpenApiParameter => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

function buildDocument(): OpenApiDocument {
  const schemas = {
    ...componentSchemas("output", [
      problemSchema,
      callSchema,
      callWithCostSchema,
      callDetailSchema,
      callDetailWithCostSchema,
      callPageSchema,
      balanceSchema,
      accountSchema,
      accountListSchema,
      rateSchema,
      usageRowSchema,
      usageRowWithCostSchema,
      usageTotalSchema,
      usageTotalWithCostSchema,
      usageReportSchema,
      ...OPENAPI_INGEST.responseSchemas,
      ...OPENAPI_AUTHORIZATIONS.responseSchemas,
    ]),
    ...componentSchemas("input", [...OPENAPI_INGEST.requestSchemas, ...OPENAPI_AUTHORIZATIONS.requestSchemas]),
  };

  const paths: OpenApiDocument["paths"] = {
    "/v1/calls": {
      get: {
        operationId: "listCalls",
        summary: "List calls",
        description:
          "Calls newest first (`startTime` descending, then `id` descending), paged with an opaque cursor. " +
          "Follow `nextPageUrl` with the same Authorization header until `meta.hasMore` is false; it carries every " +
          "filter and `pageSize` of the request. A cursor is signed and bound to the filters and key it was issued " +
          "for. Paging never repeats or skips a call, even while new calls arrive. Cost fields are present only for " +
          "`calls:read_cost` keys.",
        tags: ["Calls"],
        "x-scope": "calls:read",
        parameters: queryParameters(listCallsQuerySchema as unknown as ZodObjectLike),
        responses: {
          ...ok("A page of calls", ref("CallPage")),
          ...commonErrors({ "400": ["invalid_parameter", "invalid_cursor"] }),
        },
      },
    },
    "/v1/calls/export": {
      get: {
        operationId: "exportCalls",
        summary: "Export calls as CSV",
        description:
          "Every call matching the filters of `GET /v1/calls`, newest first, streamed as one CSV download. " +
          "The cost columns are present only for `calls:read_cost` keys.",
        tags: ["Calls"],
        "x-scope": "calls:read",
        parameters: queryParameters(listCallsQuerySchema as unknown as ZodObjectLike).filter(
          (p) => p.name !== "cursor" && p.name !== "pageSize",
        ),
        responses: {
          "200": {
            description: "CSV with a header row",
            headers: STANDARD_HEADERS,
            content: { "text/csv": { schema: { type: "string" } } },
          },
          ...commonErrors({ "400": ["invalid_parameter"] }),
        },
      },
    },
    "/v1/calls/{id}": {
      get: {
        operationId: "getCall",
        summary: "Get one call",
        description:
          "One call with its full detail: the list fields plus `accountcode`, `networkAddr`, `billingGroupId`, " +
          "`answerTime`, `rated`, `matchedPrefix`, `sellRate`, `billingIncrement`, and for `calls:read_cost` keys the " +
          "cost fields and `buyRate`. Another group's call answers 404, like an unknown id.",
        tags: ["Calls"],
        "x-scope": "calls:read",
        parameters: [idParameter("Call id, from the `id` field of a call")],
        responses: {
          ...ok("The call", oneOf("CallDetail", "CallDetailWithCost")),
          ...commonErrors({ "404": ["not_found"] }),
        },
      },
    },
    "/v1/usage": {
      get: {
        operationId: "summarizeUsage",
        summary: "Usage aggregated by day, month, destination, direction, hangup cause, account or supplier",
        description:
          "Calls, answered calls, unrated calls, billed seconds and price summed over the calls matching the filters of " +
          "`GET /v1/calls`, one row per value of `groupBy` and currency (amounts of different currencies are never added; " +
          "`totals` has one entry per currency). Sums are exact and equal the sums over every page of `GET /v1/calls` " +
          "with the same filters. `day` and `month` are cut in `timeZone` (daylight saving days have 23 or 25 hours). " +
          "`buyCost` and `margin` are present only for `calls:read_cost` keys, and `groupBy=supplier` needs that scope " +
          "(403 otherwise). `account` (or `billingGroupId`) narrows a platform key to one group; a bound key asking for " +
          "another group gets an empty report, as `GET /v1/calls` gives it no calls. Answered from rollups kept by the " +
          "ingest transaction; the filters about single numbers or calls (`to`, `toPrefix`, `from`, `id`, `uuid`) are " +
          "answered from the calls themselves and are slower.",
        tags: ["Calls"],
        "x-scope": "calls:read",
        parameters: queryParameters(usageQuerySchema as unknown as ZodObjectLike),
        responses: {
          ...ok("The usage report", ref("UsageReport")),
          ...commonErrors({ "400": ["invalid_parameter"] }),
        },
      },
    },
    "/v1/balances": {
      get: {
        operationId: "getBalance",
        summary: "Balance of the key's billing group",
        description:
          "The balance of the billing group the key is bound to. A platform key (no group) answers 400 " +
          "`billing_group_required`; it reads a group's balance with `GET /v1/accounts/{id}`.",
        tags: ["Billing"],
        "x-scope": "calls:read",
        responses: { ...ok("The balance", ref("Balance")), ...commonErrors({ "400": ["billing_group_required"] }) },
      },
    },
    "/v1/rates": {
      get: {
        operationId: "lookupRate",
        summary: "Sell rate for a destination",
        description:
          "Longest-prefix match of `destination` on the rate deck of the key's billing group in force now (a deck " +
          "imported for a later date is not yet in force). Only sell rates are returned, with the rate's `connectFee` " +
          "and `minCharge` (null when none) and the deck's `effectiveFrom`. A platform key answers 400 `billing_group_required`.",
        tags: ["Billing"],
        "x-scope": "calls:read",
        parameters: queryParameters(rateQuerySchema as unknown as ZodObjectLike),
        responses: {
          ...ok("The matched rate", ref("Rate")),
          ...commonErrors({ "400": ["invalid_parameter", "billing_group_required"], "404": ["no_rate"] }),
        },
      },
    },
    "/v1/accounts": {
      get: {
        operationId: "listAccounts",
        summary: "Billing groups the key may see",
        description: "A platform key sees every billing group, a bound key only its own.",
        tags: ["Billing"],
        "x-scope": "calls:read",
        responses: { ...ok("The accounts", ref("AccountList")), ...commonErrors() },
      },
    },
    "/v1/accounts/{id}": {
      get: {
        operationId: "getAccount",
        summary: "One billing group",
        description: "How a platform key reads the balance of a chosen group. A group the key may not see answers 404.",
        tags: ["Billing"],
        "x-scope": "calls:read",
        parameters: [idParameter("Billing group id (`bg_...`)")],
        responses: { ...ok("The account", ref("Account")), ...commonErrors({ "404": ["not_found"] }) },
      },
    },
    ...OPENAPI_INGEST.paths({ ok, commonErrors, problem, ref, oneOf }),
    ...OPENAPI_AUTHORIZATIONS.paths({ ok, commonErrors, problem, ref, oneOf }),
    "/v1/openapi.json": {
      get: {
        operationId: "getOpenApi",
        summary: "This OpenAPI document",
        description: "The OpenAPI 3.1 description of /v1, generated from the schemas the handlers use. No key needed.",
        tags: ["Meta"],
        security: [],
        responses: {
          "200": {
            description: "OpenAPI 3.1 document",
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "Callbook API",
      version: "1.0.0",
      description:
        "Call records, balance and rate lookup. Every request carries `Authorization: Bearer <API key>`. " +
        "Money is a JSON number with at most 6 decimals; rates are per minute. Errors are RFC 9457 " +
        "`application/problem+json` with a stable `code`. Every answer carries `X-Request-Id`.",
    },
    servers: [{ url: "/", description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Calls", description: "Call detail records" },
      { name: "Billing", description: "Balances, accounts and rates" },
      { name: "Ingest", description: "Completed calls from switches" },
      { name: "Meta", description: "This description" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "API key `ck_...`. Scopes: `calls:read` (calls, balances, rates, accounts), `calls:read_cost` (adds buyCost, " +
            "margin, supplierId, buyRate), `cdrs:write` (ingest).",
        },
      },
      headers: {
        "X-Request-Id": {
          description: "Id of this request; quote it when reporting a problem",
          schema: { type: "string" },
        },
        "RateLimit-Limit": {
          description: "Burst size of the key's token bucket (absent when rate limiting is off)",
          schema: { type: "integer" },
        },
        "RateLimit-Remaining": { description: "Requests left in the bucket", schema: { type: "integer" } },
        "RateLimit-Reset": { description: "Seconds until the bucket is full again", schema: { type: "integer" } },
        "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
        "WWW-Authenticate": { description: "`Bearer` challenge", schema: { type: "string" } },
      },
    },
  };
}

let cached: OpenApiDocument | undefined;

/** Built once per process: the schemas are static. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildDocument();
  return cached;
}
