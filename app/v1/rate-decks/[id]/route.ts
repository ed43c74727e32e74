import { apiRoute } from "@/lib/api/handler";
import { deckCsv, deckFileResponse } from "@/lib/rating/deck-csv";
import { downloadRateDeckOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";

export const GET = apiRoute(downloadRateDeckOperation, async ({ db, principal, request, params }) => {
  platformRatingContext(principal, request);
  return deckFileResponse(await deckCsv(db, params.id));
});
