import { apiRoute } from "@/lib/api/handler";
import { reachOf } from "@/lib/auth/reach";
import { deckCsv, deckFileResponse } from "@/lib/rating/deck-csv";
import { downloadRateDeckOperation } from "@/lib/rating/deck-operations";

// Any deck for the platform; a reseller's own and its subtree's sell decks (404 otherwise).
export const GET = apiRoute(downloadRateDeckOperation, async ({ db, principal, params }) =>
  deckFileResponse(await deckCsv(db, params.id, reachOf(principal))),
);
