import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { authorizationRequestSchema } from "@/lib/authorizations/schemas";
import { listCallsQuerySchema } from "@/lib/calls/schemas";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { rateQuerySchema } from "@/lib/rating/schemas";
import { usageQuerySchema } from "@/lib/usage/schemas";
import { isStorableText } from "./storable-text";

// A NUL in any text a request brings made PostgreSQL refuse the statement: a 500 (GET /v1/usage?account=%00,
// POST /v1/authorizations with "billingGroupId":"\u0000"). Every parameter and body field of every /v1 schema
// refuses it, naming itself.

const pathsOf = (result: z.ZodSafeParseResult<unknown>) =>
  result.success ? [] : result.error.issues.map((i) => i.path.join("."));

/** Names whose value never reaches SQL as text. */
const NOT_SQL_TEXT: Record<string, string> = {
  cursor: "opaque, HMAC-verified and decoded before use (lib/calls/cursor.ts)",
};

describe("query parameters", () => {
  const schemas = { listCallsQuerySchema, usageQuerySchema, rateQuerySchema };
  for (const [schemaName, schema] of Object.entries(schemas)) {
    const names = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
    it.each(names.filter((n) => !(n in NOT_SQL_TEXT)))(`${schemaName}: %s refuses a NUL, naming itself`, (name) => {
      for (const value of ["\u0000", "a\u0000b"]) expect(pathsOf(schema.safeParse({ [name]: value }))).toContain(name);
    });
  }
});

describe("body fields", () => {
  const cdr = {
    uuid: "u-1",
    direction: "outbound",
    from: "15550001",
    to: "442071234567",
    startTime: "2026-01-05T10:00:00Z",
    answerTime: null,
    endTime: "2026-01-05T10:01:00Z",
    billingGroupId: "bg_1",
  };
  const authorization = { uuid: "u-1", destination: "4420", billingGroupId: "bg_1", from: "1555" };
  const cases: [string, z.ZodType, Record<string, unknown>, string[]][] = [
    [
      "native CDR",
      nativeCdrSchema,
      cdr,
      [
        "uuid",
        "from",
        "to",
        "hangupCause",
        "readCodec",
        "writeCodec",
        "recordingUrl",
        "accountcode",
        "networkAddr",
        "billingGroupId",
        "supplierId",
        "gateway",
      ],
    ],
    ["authorization", authorizationRequestSchema, authorization, ["uuid", "billingGroupId", "from", "destination"]],
  ];
  for (const [label, schema, valid, fields] of cases) {
    it(`${label}: the base is valid`, () => expect(pathsOf(schema.safeParse(valid))).toEqual([]));
    it.each(fields)(`${label}: %s refuses a NUL and a lone surrogate, naming itself`, (field) => {
      for (const value of ["a\u0000b", "\u0000", "a\ud800"])
        expect(pathsOf(schema.safeParse({ ...valid, [field]: value }))).toContain(field);
    });
  }
});

describe("isStorableText", () => {
  it("takes any Unicode text but NUL and lone surrogates", () => {
    expect(isStorableText("Ω≈ç 👨‍👩‍👧‍👦 \u0001 '; DROP")).toBe(true);
    for (const bad of ["\u0000", "a\u0000", "\ud800", "x\udc00y", "\udc00\ud800"])
      expect(isStorableText(bad)).toBe(false);
  });
});
