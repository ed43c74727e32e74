import { listAccounts } from "@/lib/billing/accounts";
import { toAccountDetail } from "@/lib/billing/account-detail";
import { platformChangeContext } from "@/lib/billing/change-context";
import { createAccount } from "@/lib/billing/create-account";
import { createAccountOperation, listAccountsOperation } from "@/lib/billing/operations";
import { apiRoute, json } from "@/lib/api/handler";

export const GET = apiRoute(listAccountsOperation, ({ db, principal }) => listAccounts(db, principal));

// POST /v1/accounts: a new billing group (platform keys with accounts:write; Idempotency-Key honoured).
export const POST = apiRoute(createAccountOperation, async ({ db, principal, request, body }) => {
  const by = platformChangeContext(principal, request);
  const group = await createAccount(
    db,
    { ...body, creditLimitMicros: body.creditLimit, openingBalanceMicros: body.openingBalance },
    by,
  );
  return json(toAccountDetail(group), 201, { location: `/v1/accounts/${group.id}` });
});
