import { getAccount } from "@/lib/billing/accounts";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { changeContextOf } from "@/lib/billing/change-context";
import { getAccountOperation, updateAccountOperation } from "@/lib/billing/operations";
import { updateAccountAs } from "@/lib/billing/update-account";
import { apiRoute } from "@/lib/api/handler";
import { reachOf } from "@/lib/auth/reach";

export const GET = apiRoute(getAccountOperation, ({ db, principal, params }) => getAccount(db, principal, params.id));

// PATCH /v1/accounts/{id}: name, credit limit, accountcode, disabled flag (the platform; a reseller its customers).
export const PATCH = apiRoute(updateAccountOperation, async ({ db, principal, params, request, body }) => {
  const { creditLimit, ...rest } = body;
  const changes = { ...rest, creditLimitMicros: creditLimit };
  const by = changeContextOf(principal, request);
  return toAccountDetail(await updateAccountAs(db, reachOf(principal), params.id, changes, by));
});
