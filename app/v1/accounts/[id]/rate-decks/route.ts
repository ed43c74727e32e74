import { apiRoute } from "@/lib/api/handler";
import { pageOrigin } from "@/lib/http/next-page-link";
import { publicBaseUrl } from "@/lib/config/env";
import { listSellDecksOperation, uploadSellDeckOperation } from "@/lib/rating/deck-operations";
import { deckUploadResponse, requireSellDeckReader } from "@/lib/rating/deck-request";
import { deckPage } from "@/lib/rating/list-decks";

// POST: a sell deck as text/csv (?effectiveFrom, ?dryRun, ?allowBelowCost); GET: the group's decks and their history.
export const POST = apiRoute(uploadSellDeckOperation, ({ db, principal, request, params, query }) =>
  deckUploadResponse(db, principal, request, "sell", params.id, query),
);

export const GET = apiRoute(listSellDecksOperation, ({ db, principal, request, params, query }) => {
  requireSellDeckReader(principal, params.id);
  return deckPage(db, "sell", params.id, query, pageOrigin(request, publicBaseUrl()));
});
