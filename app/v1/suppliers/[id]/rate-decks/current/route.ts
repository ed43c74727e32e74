import { apiRoute } from "@/lib/api/handler";
import { deckCsv, deckFileResponse, deckInForceId } from "@/lib/rating/deck-csv";
import { downloadBuyDeckInForceOperation } from "@/lib/rating/deck-operations";
import { platformRatingContext } from "@/lib/rating/deck-request";

export const GET = apiRoute(downloadBuyDeckInForceOperation, async ({ db, principal, request, params }) => {
  platformRatingContext(principal, request);
  return deckFileResponse(await deckCsv(db, await deckInForceId(db, "buy", params.id)));
});
