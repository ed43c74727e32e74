import { listAccounts } from "@/lib/billing/accounts";
import { listAccountsOperation } from "@/lib/billing/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(listAccountsOperation, ({ db, principal }) => listAccounts(db, principal));
