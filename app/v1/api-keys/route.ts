import { apiRoute, json } from "@/lib/api/handler";
import { clientAddress } from "@/lib/auth/request-origin";
import { createOwnApiKey } from "@/lib/keys/create-key";
import { listApiKeys } from "@/lib/keys/list-keys";
import { createApiKeyOperation, listApiKeysOperation } from "@/lib/keys/operations";

export const GET = apiRoute(listApiKeysOperation, ({ db, principal, query }) =>
  listApiKeys(db, principal, query.account || undefined),
);

export const POST = apiRoute(createApiKeyOperation, async ({ request, db, principal, body }) => {
  return json(await createOwnApiKey(db, principal, body, clientAddress(request.headers)), 201);
});
