import { getBalance } from "@/lib/billing/accounts";
import { getBalanceOperation } from "@/lib/billing/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(getBalanceOperation, ({ db, principal }) => getBalance(db, principal));
