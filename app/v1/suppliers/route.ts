import { apiRoute, json } from "@/lib/api/handler";
import { parseRequestBody } from "@/lib/billing/provisioning-schemas";
import { readJsonBody } from "@/lib/http/body";
import { createSupplierOperation, listSuppliersOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";
import { createSupplierBodySchema } from "@/lib/rating/schemas";
import { createSupplier, listSuppliers, toSupplierJson } from "@/lib/rating/suppliers";

export const GET = apiRoute(listSuppliersOperation, async ({ db, principal, request }) => {
  platformRatingContext(principal, request);
  return { suppliers: (await listSuppliers(db)).map(toSupplierJson) };
});

export const POST = apiRoute(createSupplierOperation, async ({ db, principal, request }) => {
  const by = platformRatingContext(principal, request);
  const body = parseRequestBody(
    createSupplierBodySchema,
    await readJsonBody(request, { code: "invalid_request_body" }),
  );
  const supplier = await createSupplier(db, body, by);
  return json(toSupplierJson(supplier), 201, { location: `/v1/suppliers/${supplier.id}` });
});
