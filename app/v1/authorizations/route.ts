import { apiRoute, json } from "@/lib/api/handler";
import { authorizeCall } from "@/lib/authorizations/authorize";
import { authorizeCallOperation } from "@/lib/authorizations/operations";

// POST /v1/authorizations (README "Prepaid authorizations"): a call about to connect asks how long it may last.
export const POST = apiRoute(authorizeCallOperation, async ({ db, principal, body }) => {
  const { created, authorization } = await authorizeCall(db, principal, body);
  return json(authorization, created ? 201 : 200, created ? undefined : { "Idempotent-Replayed": "true" });
});
