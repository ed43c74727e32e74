import { listAccounts } from "@/lib/billing/accounts";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute({ scope: "calls:read" }, ({ db, principal }) => listAccounts(db, principal));
