import { apiRoute } from "@/lib/api/handler";
import { clientAddress } from "@/lib/auth/request-origin";
import { revokeApiKeyOperation } from "@/lib/keys/operations";
import { revokeOwnApiKey } from "@/lib/keys/revoke-key";

export const DELETE = apiRoute(revokeApiKeyOperation, ({ request, db, principal, params }) =>
  revokeOwnApiKey(db, principal, params.id, clientAddress(request.headers)),
);
