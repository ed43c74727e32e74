import { changeContextOf } from "@/lib/billing/change-context";
import { moveBalanceAs } from "@/lib/billing/move-balance";
import { adjustAccountOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";
import { reachOf } from "@/lib/auth/reach";

// POST /v1/accounts/{id}/adjustments: a signed correction with its reason (a reseller's moves its own balance too).
export const POST = apiRoute(adjustAccountOperation, async ({ db, principal, params, request, body }) => {
  const by = changeContextOf(principal, request);
  const movement = { kind: "adjustment", amountMicros: body.amount, description: body.description } as const;
  return json(await moveBalanceAs(db, reachOf(principal), params.id, movement, by), 201);
});
