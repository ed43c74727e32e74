import { listAccounts } from "@/lib/billing/accounts";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { changeContextOf } from "@/lib/billing/change-context";
import { createAccountAs } from "@/lib/billing/create-account";
import { createAccountOperation, listAccountsOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";
import { reachOf } from "@/lib/auth/reach";

export const GET = apiRoute(listAccountsOperation, ({ db, principal }) => listAccounts(db, principal));

// POST /v1/accounts: a new billing group (the platform anywhere, a reseller within its subtree; Idempotency-Key).
export const POST = apiRoute(createAccountOperation, async ({ db, principal, request, body }) => {
  const { creditLimit, openingBalance, ...rest } = body;
  const options = { ...rest, creditLimitMicros: creditLimit, openingBalanceMicros: openingBalance };
  const group = await createAccountAs(db, reachOf(principal), options, changeContextOf(principal, request));
  return json(toAccountDetail(group), 201, { location: `/v1/accounts/${group.id}` });
});
