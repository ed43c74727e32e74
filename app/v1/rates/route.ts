import { rateQuerySchema } from "@/lib/accounts/schemas";
import { lookupRate } from "@/lib/accounts/rate-lookup";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute({ scope: "calls:read", query: rateQuerySchema }, ({ db, principal, query }) =>
  lookupRate(db, principal, query.destination),
);
