/** Types of the OpenAPI document (openapi.ts builds it; the /docs page renders it). */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; description?: string; content: Record<string, { schema: JsonSchema }> };
  responses: Record<
    string,
    { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: JsonSchema }> }
  >;
  "x-scope"?: string;
  /** Callers bound to a billing group answer 403 `insufficient_scope`, whatever their scopes (Operation.platformOnly). */
  "x-platform-only"?: true;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string; description?: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, unknown>;
    headers: Record<string, unknown>;
  };
}
