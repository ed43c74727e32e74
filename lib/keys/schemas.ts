import { z } from "zod";
import { INSTANT_RANGE_MESSAGE, isStorableInstant } from "@/lib/http/query-params";
import { SCOPES } from "@/lib/auth/scopes";

/** The ApiKey resource of /v1 (docs/contract.md §13). list-keys.ts and create-key.ts are its only producers. */

const isoUtc = (description: string) => z.string().describe(`${description}, ISO 8601 UTC`);

export const apiKeySchema = z
  .object({
    id: z.string().describe("Identifier of the key, used in DELETE /v1/api-keys/{id}"),
    name: z.string().nullable().describe("What the key is for, as its creator named it"),
    prefix: z.string().describe("The first characters of the secret (`ck_AbC123…`): enough to recognise it"),
    scopes: z.array(z.enum(SCOPES)).describe("What the key may do"),
    billingGroupId: z.string().nullable().describe("The billing group (account) of the key; null for a platform key"),
    createdAt: isoUtc("When the key was created"),
    expiresAt: isoUtc("When the key stops working").nullable().describe("null: never"),
    lastUsedAt: isoUtc("When the key last authenticated a request, to the minute (docs/contract.md §13)")
      .nullable()
      .describe("null: never used"),
    revokedAt: isoUtc("When the key was revoked").nullable().describe("null: live"),
  })
  .meta({ id: "ApiKey", description: "An API key, without its secret" });

export type ApiKey = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema
  .extend({
    secret: z.string().describe("The key itself, for `Authorization: Bearer`: shown in this answer only, never again"),
  })
  .meta({ id: "CreatedApiKey", description: "A new API key, with its secret (shown once)" });

export type CreatedApiKeyBody = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = z
  .object({ apiKeys: z.array(apiKeySchema).describe("Newest first, revoked ones included") })
  .meta({ id: "ApiKeyList", description: "The keys the caller may manage" });

export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

export const createApiKeyRequestSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(100, "must be at most 100 characters")
      .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
      .describe("What the key is for"),
    scopes: z
      .array(z.enum(SCOPES, { error: `must be one of ${SCOPES.join(", ")}` }))
      .min(1, "must name at least one scope")
      .max(SCOPES.length * 2, "too many scopes")
      .describe("What the key may do: each one a scope the caller holds itself (403 `insufficient_scope` otherwise)"),
    expiresAt: z.iso
      .datetime({ offset: true, error: "must be an ISO 8601 timestamp with offset (2026-12-31T00:00:00Z)" })
      .refine(isStorableInstant, { message: INSTANT_RANGE_MESSAGE })
      .nullish()
      .describe(
        "When the key stops working (in the future); absent or null: never, unless the caller's own key expires",
      ),
    billingGroupId: z
      .string()
      .max(64, "must be at most 64 characters")
      .nullish()
      .describe(
        "Platform callers: the billing group of the new key (absent or null: a platform key). A group's key creates keys in its own group only",
      ),
  })
  .meta({ id: "CreateApiKeyRequest", description: "A new key's name, scopes and expiry" });

export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>;

export const listApiKeysQuerySchema = z.object({
  account: z
    .string()
    .max(64, "must be at most 64 characters")
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
    .optional()
    .describe("Platform keys: the keys of this billing group (account) only"),
});

export type ListApiKeysQuery = z.infer<typeof listApiKeysQuerySchema>;
