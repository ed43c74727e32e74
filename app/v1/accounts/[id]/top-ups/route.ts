import { platformChangeContext } from "@/lib/billing/change-context";
import { moveBalance } from "@/lib/billing/move-balance";
import { topUpAccountOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";

// POST /v1/accounts/{id}/top-ups: money onto the balance, through the ledger (platform keys; Idempotency-Key).
export const POST = apiRoute(topUpAccountOperation, async ({ db, principal, params, request, body }) => {
  const by = platformChangeContext(principal, request);
  const movement = { kind: "topup", amountMicros: body.amount, description: body.description ?? "Top-up" } as const;
  return json(await moveBalance(db, params.id, movement, by), 201);
});
