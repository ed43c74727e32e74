import { platformChangeContext } from "@/lib/billing/change-context";
import { moveBalance } from "@/lib/billing/move-balance";
import { adjustAccountOperation } from "@/lib/billing/operations";
import { adjustmentBodySchema, parseRequestBody } from "@/lib/billing/provisioning-schemas";
import { apiRoute, json } from "@/lib/api/handler";
import { readJsonBody } from "@/lib/http/body";

// POST /v1/accounts/{id}/adjustments: a signed correction of the balance with its reason (platform keys).
export const POST = apiRoute(adjustAccountOperation, async ({ db, principal, params, request }) => {
  const by = platformChangeContext(principal, request);
  const body = parseRequestBody(adjustmentBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  const movement = { kind: "adjustment", amountMicros: body.amount, description: body.description } as const;
  return json(await moveBalance(db, params.id, movement, by), 201);
});
