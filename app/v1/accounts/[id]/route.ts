import { getAccount } from "@/lib/billing/accounts";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { platformChangeContext } from "@/lib/billing/change-context";
import { getAccountOperation, updateAccountOperation } from "@/lib/billing/operations";
import { updateAccount } from "@/lib/billing/update-account";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(getAccountOperation, ({ db, principal, params }) => getAccount(db, principal, params.id));

// PATCH /v1/accounts/{id}: name, credit limit, accountcode, the operator's disabled flag (platform keys).
export const PATCH = apiRoute(updateAccountOperation, async ({ db, principal, params, request, body }) => {
  const by = platformChangeContext(principal, request);
  const { creditLimit, ...rest } = body;
  return toAccountDetail(await updateAccount(db, params.id, { ...rest, creditLimitMicros: creditLimit }, by));
});
