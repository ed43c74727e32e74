import { z } from "zod";
import { ERROR_TABLE, problemSchema, type ErrorCode } from "@/lib/errors/api-error";
import { OPERATION_TAGS, type Operation } from "@/lib/openapi/operation";
import { OPERATIONS } from "./operations";
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiParameter } from "./openapi-types";

/**
 * The OpenAPI 3.1 document of /v1, built from the operations each concept declares (lib/api/operations.ts lists
 * them) and the zod schemas the handlers validate and produce with, so the document cannot drift from the code.
 * Served at /v1/openapi.json and rendered at /docs.
 */

const INFO: OpenApiDocument["info"] = {
  title: "Callbook API",
  version: "1.0.0",
  description:
    "Call records, balance and rate lookup. Every request carries `Authorization: Bearer <API key>`. " +
    "Money is a JSON number with at most 6 decimals; rates are per minute. Errors are RFC 9457 " +
    "`application/problem+json` with a stable `code`. Every answer carries `X-Request-Id`.",
};

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description:
      "API key `ck_...`. Scopes: `calls:read` (calls, balances, rates, accounts), `calls:read_cost` (adds buyCost, " +
      "margin, supplierId, buyRate), `cdrs:write` (ingest).",
  },
  basicAuth: {
    type: "http",
    scheme: "basic",
    description:
      "Only where an operation lists it (POST /v1/cdrs, for FreeSWITCH mod_json_cdr): the API key as the password, " +
      "any user name.",
  },
};

const HEADERS = {
  "X-Request-Id": { description: "Id of this request; quote it when reporting a problem", schema: { type: "string" } },
  "RateLimit-Limit": {
    description: "Burst size of the key's token bucket (absent when rate limiting is off)",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": { description: "Requests left in the bucket", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the bucket is full again", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
  "WWW-Authenticate": {
    description: "`Bearer` challenge, and a `Basic` one where the operation takes Basic (POST /v1/cdrs)",
    schema: { type: "string" },
  },
};

const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Headers of every answer apiRoute gives. */
const ANSWER_HEADERS = {
  "X-Request-Id": header("X-Request-Id"),
  "RateLimit-Limit": header("RateLimit-Limit"),
  "RateLimit-Remaining": header("RateLimit-Remaining"),
  "RateLimit-Reset": header("RateLimit-Reset"),
};

/** The header of an idempotent operation (lib/idempotency; README "Idempotent requests"). */
const IDEMPOTENCY_KEY_PARAMETER: OpenApiParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any unique string up to 255 printable characters (a V4 UUID). Within 24 hours a retry with the same key, " +
    "method, path and body answers the first request's status and body again, with `Idempotent-Replayed: true`; " +
    "the same key with another request answers 409 `idempotency_key_reused`, and while the first still runs 409 " +
    "`idempotency_key_in_use` (retry after `Retry-After`). Answers of 500 and above are not kept.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/** Headers an error answer carries besides those. */
const ERROR_HEADERS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  unauthorized: { "WWW-Authenticate": header("WWW-Authenticate") },
  rate_limited: { "Retry-After": header("Retry-After") },
  idempotency_key_in_use: { "Retry-After": header("Retry-After") },
};

/** What apiRoute answers itself for an operation, before the operation's own errors (docs/contract.md §3, §6). */
function errorCodes(operation: Operation): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (operation.scope) codes.push("unauthorized", "insufficient_scope", "rate_limited", "internal", "unavailable");
  if (operation.query) codes.push("invalid_parameter");
  if (operation.params) codes.push("not_found");
  if (operation.idempotent) codes.push("invalid_parameter", "idempotency_key_reused", "idempotency_key_in_use");
  return [...new Set([...codes, ...(operation.errors ?? [])])];
}

const JSON_SCHEMA_OPTIONS = { target: "draft-2020-12", unrepresentable: "any" } as const;

/**
 * Strips what is noise inside an OpenAPI document (`$schema`, zod's long regexes next to a `format`, the safe-integer
 * bounds of every .int()) and points zod's `$defs` references at the document's components.
 */
function tidy(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$schema" || k === "$id") continue;
    if (k === "pattern" && typeof schema.format === "string") continue;
    if ((k === "minimum" || k === "maximum") && Math.abs(Number(v)) === Number.MAX_SAFE_INTEGER) continue;
    if (k === "$ref" && typeof v === "string") out[k] = v.replace(/^#\/\$defs\//, "#/components/schemas/");
    else if (Array.isArray(v)) out[k] = v.map((x) => (x && typeof x === "object" ? tidy(x as JsonSchema) : x));
    else if (v && typeof v === "object") out[k] = tidy(v as JsonSchema);
    else out[k] = v;
  }
  return out;
}

interface ConvertedBodies {
  /** Each body schema as its operation shows it: a `$ref` when it has a meta id, else inline. */
  bodies: Map<z.ZodType, JsonSchema>;
  /** Every schema with a meta id met on the way, by id. */
  components: Record<string, JsonSchema>;
}

/** Converts bodies in one pass (as one tuple), so zod extracts each schema with a meta id once, into `$defs`. */
function convertBodies(io: "input" | "output", schemas: z.ZodType[]): ConvertedBodies {
  const json = z.toJSONSchema(z.tuple(schemas as [z.ZodType, ...z.ZodType[]]), { ...JSON_SCHEMA_OPTIONS, io }) as {
    prefixItems?: JsonSchema[];
    $defs?: Record<string, JsonSchema>;
  };
  const bodies = new Map(schemas.map((s, i) => [s, tidy(json.prefixItems![i])]));
  const components: Record<string, JsonSchema> = {};
  for (const [id, s] of Object.entries(json.$defs ?? {})) {
    // zod names a repeated or recursive schema without an id itself; the document wants every component named.
    if (id.startsWith("__schema")) throw new Error("a schema met more than once in the document needs .meta({ id })");
    components[id] = tidy(s);
  }
  return { bodies, components };
}

/** The components of both directions; a schema id means one schema, so both must convert alike. */
function mergeComponents(...parts: Record<string, JsonSchema>[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const part of parts) {
    for (const [id, s] of Object.entries(part)) {
      if (id in out && JSON.stringify(out[id]) !== JSON.stringify(s))
        throw new Error(`schema ${id} differs as request and as response: give each its own id`);
      out[id] = s;
    }
  }
  return out;
}

/** Parameters from a zod object: names, required-ness, types, defaults, descriptions. */
function parametersOf(schema: z.ZodObject | undefined, at: "path" | "query", leaveOut: readonly string[] = []) {
  if (!schema) return [];
  return Object.entries(schema.shape)
    .filter(([name]) => !leaveOut.includes(name))
    .map(([name, field]): OpenApiParameter => {
      const json = tidy(z.toJSONSchema(field, { ...JSON_SCHEMA_OPTIONS, io: "output" }) as JsonSchema);
      const description = typeof json.description === "string" ? json.description : undefined;
      delete json.description;
      return { name, in: at, required: !field.safeParse(undefined).success, description, schema: json };
    });
}

function problemResponse(status: number, codes: ErrorCode[], problem: JsonSchema) {
  const headers = Object.assign({}, ...codes.map((code) => ERROR_HEADERS[code]));
  return {
    description: `${ERROR_TABLE[codes[0]].title}: ${codes.map((c) => `\`${c}\``).join(", ")}`,
    content: {
      "application/problem+json": {
        schema: { allOf: [problem, { properties: { status: { const: status }, code: { enum: codes } } }] },
      },
    },
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

/** The error answers of an operation, one per status, naming each code it can carry. */
function errorResponses(operation: Operation, problem: JsonSchema): OpenApiOperation["responses"] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(operation)) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [String(status), problemResponse(status, codes, problem)]),
  );
}

function successResponses(operation: Operation, output: ConvertedBodies): OpenApiOperation["responses"] {
  return Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      {
        description: response.description,
        ...(operation.scope ? { headers: ANSWER_HEADERS } : {}),
        content: { [response.contentType ?? "application/json"]: { schema: output.bodies.get(response.body)! } },
      },
    ]),
  );
}

function operationObject(operation: Operation, input: ConvertedBodies, output: ConvertedBodies): OpenApiOperation {
  const parameters = [
    ...parametersOf(operation.params, "path"),
    ...parametersOf(operation.query, "query", operation.undocumentedQuery),
    ...(operation.idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : []),
  ];
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    ...(operation.scope ? { "x-scope": operation.scope } : { security: [] }),
    ...(operation.platformOnly ? { "x-platform-only": true as const } : {}),
    ...(operation.basicAuth ? { security: [{ bearerAuth: [] }, { basicAuth: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: input.bodies.get(operation.body)! },
              ...Object.fromEntries(
                Object.entries(operation.otherBodies ?? {}).map(([type, body]) => [
                  type,
                  { schema: input.bodies.get(body)! },
                ]),
              ),
            },
          },
        }
      : {}),
    responses: {
      ...successResponses(operation, output),
      ...errorResponses(operation, output.bodies.get(problemSchema)!),
    },
  };
}

export function buildDocument(operations: readonly Operation[]): OpenApiDocument {
  const output = convertBodies("output", [
    problemSchema,
    ...operations.flatMap((op) => Object.values(op.responses).map((r) => r.body)),
  ]);
  const input = convertBodies(
    "input",
    operations.flatMap((op) => (op.body ? [op.body, ...Object.values(op.otherBodies ?? {})] : [])),
  );
  const paths: OpenApiDocument["paths"] = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, input, output);
  return {
    openapi: "3.1.0",
    info: INFO,
    servers: [{ url: "/", description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(OPERATION_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: mergeComponents(output.components, input.components),
      securitySchemes: SECURITY_SCHEMES,
      headers: HEADERS,
    },
  };
}

let cached: OpenApiDocument | undefined;

/** Built once per process: the schemas are static. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildDocument(OPERATIONS);
  return cached;
}
