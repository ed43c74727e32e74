import { readJsonBody } from "@/lib/api/body";
import { apiRoute, json } from "@/lib/api/handler";
import { authorizeCall } from "@/lib/authorizations/authorize";
import { authorizeCallOperation } from "@/lib/authorizations/operations";

// POST /v1/authorizations (issue 13): prepaid authorization of a call about to connect; its CDR settles it.
export const POST = apiRoute(authorizeCallOperation, async ({ request, db, principal }) => {
  const { created, authorization } = await authorizeCall(db, principal, await readJsonBody(request));
  return json(authorization, created ? 201 : 200, created ? undefined : { "Idempotent-Replayed": "true" });
});
