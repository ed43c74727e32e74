import { apiRoute } from "@/lib/api/handler";
import { pageOrigin } from "@/lib/http/next-page-link";
import { publicBaseUrl } from "@/lib/config/env";
import { listBuyDecksOperation, uploadBuyDeckOperation } from "@/lib/rating/deck-operations";
import { deckUploadResponse, platformRatingContext } from "@/lib/rating/deck-request";
import { deckPage } from "@/lib/rating/list-decks";

// POST: a buy deck as text/csv (?effectiveFrom, ?dryRun); GET: the supplier's decks and their history.
export const POST = apiRoute(uploadBuyDeckOperation, ({ db, principal, request, params, query }) =>
  deckUploadResponse(db, principal, request, "buy", params.id, query),
);

export const GET = apiRoute(listBuyDecksOperation, ({ db, principal, request, params, query }) => {
  platformRatingContext(principal, request);
  return deckPage(db, "buy", params.id, query, pageOrigin(request, publicBaseUrl()));
});
