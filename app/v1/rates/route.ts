import { rateQuerySchema } from "@/lib/rating/schemas";
import { lookupRate } from "@/lib/rating/lookup-rate";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute({ scope: "calls:read", query: rateQuerySchema }, ({ db, principal, query }) =>
  lookupRate(db, principal, query.destination),
);
