import { getAccount } from "@/lib/billing/accounts";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { platformChangeContext } from "@/lib/billing/change-context";
import { getAccountOperation, updateAccountOperation } from "@/lib/billing/operations";
import { parseRequestBody, updateAccountBodySchema } from "@/lib/billing/provisioning-schemas";
import { updateAccount } from "@/lib/billing/update-account";
import { apiRoute } from "@/lib/api/handler";
import { readJsonBody } from "@/lib/http/body";

export const GET = apiRoute(getAccountOperation, ({ db, principal, params }) => getAccount(db, principal, params.id));

// PATCH /v1/accounts/{id}: name, credit limit, accountcode, the operator's disabled flag (platform keys).
export const PATCH = apiRoute(updateAccountOperation, async ({ db, principal, params, request }) => {
  const by = platformChangeContext(principal, request);
  const body = parseRequestBody(updateAccountBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  const { creditLimit, ...rest } = body;
  return toAccountDetail(await updateAccount(db, params.id, { ...rest, creditLimitMicros: creditLimit }, by));
});
