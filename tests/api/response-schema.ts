import { z } from "zod";
import { OPERATIONS } from "@/lib/api/operations";
import { openApiDocument } from "@/lib/api/openapi";
import { problemSchema } from "@/lib/errors/api-error";
import type { Operation } from "@/lib/openapi/operation";

// Every JSON answer the HTTP tests see is checked against what its operation declares, as the OpenAPI document shows
// it (lib/api/operations.ts through lib/api/openapi.ts), so the document cannot drift from behaviour unnoticed. The
// document's JSON Schema is the check, not the zod schema it came from: it says `additionalProperties: false` and
// `oneOf` (exactly one), which a zod object (that strips unknown keys) would not hold an answer to.

const routes = OPERATIONS.map((operation) => ({
  operation,
  pattern: new RegExp(`^${operation.path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
  // A literal segment is a closer match than a parameter (`/rate-decks/current` before `/rate-decks/{id}`).
  parameters: operation.path.split("{").length - 1,
})).sort((a, b) => a.parameters - b.parameters);

type JsonValue = unknown;

/** The document's `#/components/schemas/X` references as `#/$defs/X`, the only local references fromJSONSchema takes. */
function withDefsRefs(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withDefsRefs);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/$defs/") : withDefsRefs(v),
    ]),
  );
}

interface DocumentShape {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
  components: { schemas: Record<string, object> };
}

let document: DocumentShape | undefined;
let defs: JsonValue;
const validators = new Map<string, z.ZodType | null>();

/** The document's schema of `operation`'s `status` answer in `contentType`, as zod; null when it declares none. */
function documentedSchema(operation: Operation, status: number, contentType: string): z.ZodType | null {
  const id = `${operation.operationId} ${status} ${contentType}`;
  if (!validators.has(id)) {
    document ??= openApiDocument() as unknown as DocumentShape;
    defs ??= withDefsRefs(document.components.schemas);
    const schema =
      document.paths[operation.path]?.[operation.method.toLowerCase()]?.responses?.[String(status)]?.content?.[
        contentType
      ]?.schema;
    validators.set(
      id,
      schema
        ? z.fromJSONSchema({ ...(withDefsRefs(schema) as object), $defs: defs } as z.core.JSONSchema.JSONSchema)
        : null,
    );
  }
  return validators.get(id)!;
}

function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join(".") || "(answer)"}: ${issue.message}`)
    .join("; ");
}

/**
 * Why a JSON answer does not match its operation, or undefined when it does (or is not a /v1 operation's JSON): a
 * problem+json answer must be a Problem, a success answer must have a status and media type the operation declares
 * and match that response's schema in the document.
 */
export function responseSchemaDrift(
  method: string,
  url: URL,
  answer: { status: number; headers: Headers; json: unknown },
): string | undefined {
  if (answer.json === undefined) return undefined;
  const at = routes.filter((route) => route.pattern.test(url.pathname)).map((route) => route.operation);
  if (at.length === 0) return undefined;
  const where = `${method} ${url.pathname} answered ${answer.status}`;
  const contentType = (answer.headers.get("content-type") ?? "").split(";")[0].trim();
  if (contentType === "application/problem+json") {
    const parsed = problemSchema.safeParse(answer.json);
    return parsed.success ? undefined : `${where}, a problem the Problem schema refuses: ${issuesText(parsed.error)}`;
  }
  const operation = at.find((op) => op.method === method);
  if (!operation || answer.status < 200 || answer.status > 299) return undefined;
  const schema = documentedSchema(operation, answer.status, contentType);
  if (!schema) return `${where} as ${contentType}, which ${operation.operationId} does not declare`;
  const parsed = schema.safeParse(answer.json);
  return parsed.success
    ? undefined
    : `${where}, an answer ${operation.operationId}'s documented schema refuses: ${issuesText(parsed.error)}`;
}
