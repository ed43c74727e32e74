import { z } from "zod";
import { idSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import {
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  listApiKeysQuerySchema,
} from "./schemas";

/** The /v1 operations on API keys (routes in app/v1/api-keys; lib/openapi/operation.ts says what each field does). */

export const createApiKeyOperation = defineOperation({
  operationId: "createApiKey",
  method: "POST",
  path: "/v1/api-keys",
  tag: "Keys",
  summary: "Create an API key",
  description:
    "A new key in the caller's billing group (a platform caller may name `billingGroupId`), with `scopes` the " +
    "caller holds itself (403 `insufficient_scope` names any other) and an optional `expiresAt` (no later than the " +
    "caller's own key's expiry, which it defaults to). The answer carries `secret`, shown this once: only a hash is " +
    "kept. Recorded in the audit log as `api_key.created`.",
  scope: "keys:write",
  body: createApiKeyRequestSchema,
  responses: { 201: { description: "The new key, with its secret", body: createdApiKeySchema } },
  errors: ["invalid_request_body", "payload_too_large"],
});

export const listApiKeysOperation = defineOperation({
  operationId: "listApiKeys",
  method: "GET",
  path: "/v1/api-keys",
  tag: "Keys",
  summary: "List API keys",
  description:
    "The keys of the caller's billing group (a platform caller: every key, or one group's with `account`), newest " +
    "first, revoked ones included, with when each was last used (to the minute). Never a secret nor its hash.",
  scope: "keys:read",
  query: listApiKeysQuerySchema,
  responses: { 200: { description: "The keys", body: apiKeyListSchema } },
});

export const revokeApiKeyOperation = defineOperation({
  operationId: "revokeApiKey",
  method: "DELETE",
  path: "/v1/api-keys/{id}",
  tag: "Keys",
  summary: "Revoke an API key",
  description:
    "Revokes a key of the caller's group (a platform caller: any key) and ends its portal sessions: every request " +
    "with it is refused (401) from the answer on (other app processes as soon as the revocation's notification " +
    "reaches them). Revoking a revoked key answers it unchanged. Another group's key answers 404, like an unknown " +
    "id. Recorded in the audit log as `api_key.revoked`.",
  scope: "keys:write",
  params: z.object({ id: idSchema("key", "Key id, from the `id` field of a key") }),
  responses: { 200: { description: "The key, revoked", body: apiKeySchema } },
});

/** The /v1 operations on API keys, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const KEY_OPERATIONS = [createApiKeyOperation, listApiKeysOperation, revokeApiKeyOperation] as const;
