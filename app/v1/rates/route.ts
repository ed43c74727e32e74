import { lookupRate } from "@/lib/rating/lookup-rate";
import { lookupRateOperation } from "@/lib/rating/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(lookupRateOperation, ({ db, principal, query }) =>
  lookupRate(db, principal, query.destination),
);
