import { apiRoute } from "@/lib/api/handler";
import { deckCsv, deckFileResponse, deckInForceId } from "@/lib/rating/deck-csv";
import { downloadSellDeckInForceOperation } from "@/lib/rating/deck-operations";
import { requireSellDeckReader } from "@/lib/rating/deck-request";

export const GET = apiRoute(downloadSellDeckInForceOperation, async ({ db, principal, params }) => {
  requireSellDeckReader(principal, params.id);
  return deckFileResponse(await deckCsv(db, await deckInForceId(db, "sell", params.id)));
});
