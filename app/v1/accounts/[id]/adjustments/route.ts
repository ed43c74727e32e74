import { platformChangeContext } from "@/lib/billing/change-context";
import { moveBalance } from "@/lib/billing/move-balance";
import { adjustAccountOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";

// POST /v1/accounts/{id}/adjustments: a signed correction of the balance with its reason (platform keys).
export const POST = apiRoute(adjustAccountOperation, async ({ db, principal, params, request, body }) => {
  const by = platformChangeContext(principal, request);
  const movement = { kind: "adjustment", amountMicros: body.amount, description: body.description } as const;
  return json(await moveBalance(db, params.id, movement, by), 201);
});
