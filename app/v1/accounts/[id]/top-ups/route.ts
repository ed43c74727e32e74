import { platformChangeContext } from "@/lib/billing/change-context";
import { moveBalance } from "@/lib/billing/move-balance";
import { topUpAccountOperation } from "@/lib/billing/operations";
import { parseRequestBody, topUpBodySchema } from "@/lib/billing/provisioning-schemas";
import { apiRoute, json } from "@/lib/api/handler";
import { readJsonBody } from "@/lib/http/body";

// POST /v1/accounts/{id}/top-ups: money onto the balance, through the ledger (platform keys; Idempotency-Key).
export const POST = apiRoute(topUpAccountOperation, async ({ db, principal, params, request }) => {
  const by = platformChangeContext(principal, request);
  const body = parseRequestBody(topUpBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  const movement = { kind: "topup", amountMicros: body.amount, description: body.description ?? "Top-up" } as const;
  return json(await moveBalance(db, params.id, movement, by), 201);
});
