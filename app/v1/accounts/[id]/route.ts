import { getAccount } from "@/lib/billing/accounts";
import { getAccountOperation } from "@/lib/billing/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(getAccountOperation, ({ db, principal, params }) => getAccount(db, principal, params.id));
