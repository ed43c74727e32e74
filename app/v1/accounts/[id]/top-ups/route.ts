import { changeContextOf } from "@/lib/billing/change-context";
import { moveBalanceAs } from "@/lib/billing/move-balance";
import { topUpAccountOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";
import { reachOf } from "@/lib/auth/reach";

// POST /v1/accounts/{id}/top-ups: money onto the balance, through the ledger (from a reseller's own; Idempotency-Key).
export const POST = apiRoute(topUpAccountOperation, async ({ db, principal, params, request, body }) => {
  const by = changeContextOf(principal, request);
  const movement = { kind: "topup", amountMicros: body.amount, description: body.description ?? "Top-up" } as const;
  return json(await moveBalanceAs(db, reachOf(principal), params.id, movement, by), 201);
});
