import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineOperation } from "@/lib/openapi/operation";
import { buildDocument, openApiDocument } from "./openapi";

const thing = z.object({ name: z.string() }).meta({ id: "Thing" });
const newThing = z.object({ name: z.string() }).meta({ id: "NewThing" });

const getThing = defineOperation({
  operationId: "getThing",
  method: "GET",
  path: "/v1/things/{id}",
  tag: "Calls",
  summary: "One thing",
  description: "A thing.",
  scope: "calls:read",
  params: z.object({ id: z.string().describe("Thing id") }),
  query: z.object({ detail: z.enum(["short", "long"]).optional().default("short") }),
  responses: { 200: { description: "The thing", body: thing } },
  errors: ["no_rate"],
});

const postThing = defineOperation({
  operationId: "postThing",
  method: "POST",
  path: "/v1/things",
  tag: "Calls",
  summary: "Add a thing",
  description: "Public.",
  scope: null,
  body: newThing,
  responses: { 201: { description: "Added", body: z.xor([thing, z.object({ other: z.number() })]) } },
});

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    await expect(SwaggerParser.validate(structuredClone(openApiDocument()) as never)).resolves.toBeTruthy();
  });

  it("derives parameters, error answers, headers and components from each operation", () => {
    const doc = buildDocument([getThing, postThing]);
    const get = doc.paths["/v1/things/{id}"].get;
    expect(get["x-scope"]).toBe("calls:read");
    expect(get.parameters).toEqual([
      { name: "id", in: "path", required: true, description: "Thing id", schema: { type: "string" } },
      {
        name: "detail",
        in: "query",
        required: false,
        description: undefined,
        schema: { type: "string", enum: ["short", "long"], default: "short" },
      },
    ]);
    // What apiRoute answers itself (auth, scope, limits, failures, query and path checks) plus the operation's own.
    expect(Object.keys(get.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"]);
    expect(get.responses["404"].description).toBe("Not found: `not_found`, `no_rate`");
    expect(get.responses["400"].description).toBe("Invalid parameter: `invalid_parameter`");
    expect(get.responses["200"].headers).toHaveProperty("X-Request-Id");
    expect(get.responses["200"].content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/Thing" } },
    });

    // Public, so no apiRoute: no scope, no error answers, no apiRoute headers.
    const post = doc.paths["/v1/things"].post;
    expect(post.security).toEqual([]);
    expect(post["x-scope"]).toBeUndefined();
    expect(Object.keys(post.responses)).toEqual(["201"]);
    expect(post.responses["201"].headers).toBeUndefined();
    expect(post.requestBody?.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/NewThing" });
    expect(post.responses["201"].content!["application/json"].schema).toEqual({
      oneOf: [
        { $ref: "#/components/schemas/Thing" },
        { type: "object", properties: { other: { type: "number" } }, required: ["other"], additionalProperties: false },
      ],
    });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(["NewThing", "Problem", "Thing"]);
  });

  it("lists HTTP Basic and mod_json_cdr's form bodies on POST /v1/cdrs only", () => {
    const doc = openApiDocument();
    expect(doc.components.securitySchemes).toHaveProperty("basicAuth", expect.objectContaining({ scheme: "basic" }));
    const ingest = doc.paths["/v1/cdrs"].post;
    expect(ingest.security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }]);
    expect(Object.keys(ingest.requestBody!.content)).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
      "application/x-www-form-base64-encoded",
    ]);
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (p !== "/v1/cdrs") expect(JSON.stringify(op.security ?? []), `${method} ${p}`).not.toContain("basicAuth");
      }
    }
  });

  it("marks the platform's own operations x-platform-only, and those only", () => {
    const doc = openApiDocument();
    const marked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        if (op["x-platform-only"] !== undefined) marked.push(`${method.toUpperCase()} ${path}`);
    expect(marked.sort()).toEqual(
      [
        "POST /v1/accounts/{id}/erase-calls",
        "PUT /v1/accounts/{id}/auto-recharge",
        "GET /v1/suppliers",
        "POST /v1/suppliers",
        "PATCH /v1/suppliers/{id}",
        "POST /v1/suppliers/{id}/rate-decks",
        "GET /v1/suppliers/{id}/rate-decks",
        "GET /v1/suppliers/{id}/rate-decks/current",
      ].sort(),
    );
    // A reseller provisions its subtree (docs/contract.md "Reseller tiers"): decided by the operation, not marked.
    expect(doc.paths["/v1/accounts"].post["x-platform-only"]).toBeUndefined();
    expect(doc.paths["/v1/suppliers"].post["x-platform-only"]).toBe(true);
    expect(buildDocument([getThing]).paths["/v1/things/{id}"].get["x-platform-only"]).toBeUndefined();
  });

  it("refuses one schema id for a request and a response that convert differently", () => {
    // zod's input view of an object leaves extra keys open, its output view closes them: one id cannot name both.
    expect(() => buildDocument([{ ...postThing, body: thing }])).toThrow(/Thing differs as request and as response/);
  });
});
