import { apiRoute } from "@/lib/api/handler";
import { platformChangeContext } from "@/lib/billing/change-context";
import { parseRequestBody } from "@/lib/billing/provisioning-schemas";
import { readJsonBody } from "@/lib/http/body";
import { setAutoRecharge } from "@/lib/payments/auto-recharge";
import { autoRechargeAnswer } from "@/lib/payments/auto-recharge-answer";
import { autoRechargeBodySchema, setAutoRechargeOperation } from "@/lib/payments/operations";

// PUT /v1/accounts/{id}/auto-recharge: staff set or turn off a group's auto-recharge (platform keys; audited).
export const PUT = apiRoute(setAutoRechargeOperation, async ({ db, principal, params, request }) => {
  const by = platformChangeContext(principal, request);
  const body = parseRequestBody(autoRechargeBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  const setting = body.enabled ? { thresholdMicros: body.threshold!, amountMicros: body.amount! } : null;
  await setAutoRecharge(db, params.id, setting, by);
  return autoRechargeAnswer(db, params.id);
});
