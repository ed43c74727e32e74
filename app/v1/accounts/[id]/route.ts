import { getAccount } from "@/lib/billing/accounts";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute<undefined, { id: string }>({ scope: "calls:read" }, ({ db, principal, params }) =>
  getAccount(db, principal, params.id),
);
