import { apiRoute } from "@/lib/api/handler";
import { updateSupplierOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";
import { toSupplierJson, updateSupplier } from "@/lib/rating/suppliers";

export const PATCH = apiRoute(updateSupplierOperation, async ({ db, principal, request, params, body }) => {
  const by = platformRatingContext(principal, request);
  return toSupplierJson(await updateSupplier(db, params.id, body, by));
});
