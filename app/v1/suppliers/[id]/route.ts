import { apiRoute } from "@/lib/api/handler";
import { parseRequestBody } from "@/lib/billing/provisioning-schemas";
import { readJsonBody } from "@/lib/http/body";
import { updateSupplierOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";
import { updateSupplierBodySchema } from "@/lib/rating/schemas";
import { toSupplierJson, updateSupplier } from "@/lib/rating/suppliers";

export const PATCH = apiRoute(updateSupplierOperation, async ({ db, principal, request, params }) => {
  const by = platformRatingContext(principal, request);
  const body = parseRequestBody(
    updateSupplierBodySchema,
    await readJsonBody(request, { code: "invalid_request_body" }),
  );
  return toSupplierJson(await updateSupplier(db, params.id, body, by));
});
