import { apiRoute, json } from "@/lib/api/handler";
import { createSupplierOperation, listSuppliersOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";
import { createSupplier, listSuppliers, toSupplierJson } from "@/lib/rating/suppliers";

export const GET = apiRoute(listSuppliersOperation, async ({ db, principal, request }) => {
  platformRatingContext(principal, request);
  return { suppliers: (await listSuppliers(db)).map(toSupplierJson) };
});

export const POST = apiRoute(createSupplierOperation, async ({ db, principal, request, body }) => {
  const by = platformRatingContext(principal, request);
  const supplier = await createSupplier(db, body, by);
  return json(toSupplierJson(supplier), 201, { location: `/v1/suppliers/${supplier.id}` });
});
