import { auditActorOf } from "@/lib/audit/actor";
import type { Principal } from "@/lib/auth/principal";
import { isPlatform, reachOf, reaches, requirePlatform, requireProvisioningOf } from "@/lib/auth/reach";
import { clientAddress } from "@/lib/auth/request-origin";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { readBodyText } from "@/lib/http/body";
import { json } from "@/lib/http/json-response";
import type { CardSide } from "./find-rate";
import { marginBasisPoints, type DeckUploadQuery } from "./schemas";
import { deckUploadJson, parseDeckCsv, uploadDeck } from "./upload-deck";

// The HTTP side of the deck and supplier routes (app/v1/accounts/[id]/rate-decks, app/v1/suppliers/...), so each
// route file stays a line or two.

/**
 * Suppliers and their buy decks are the platform's: their operations are declared `platformOnly` (a key or session
 * bound to a billing group answers 403 even with `rates:write`); checked again here, as the handler's own guard.
 */
export function platformRatingContext(principal: Principal, request: Request): ChangeContext {
  requirePlatform(reachOf(principal), "rating");
  return { actor: auditActorOf(principal), address: clientAddress(request.headers) };
}

/**
 * An account's sell decks, read (its history, the deck in force): the platform any account's; a bound caller (a
 * reseller) its own (what it pays its parent: its buy deck) and its subtree's; another account answers 404.
 */
export function requireSellDeckReader(principal: Principal, accountId: string): void {
  if (!reaches(reachOf(principal), accountId))
    throw new ApiError("not_found", `No billing group with id ${JSON.stringify(accountId.slice(0, 64))}.`);
}

const CSV_TYPES = new Set(["text/csv", "text/plain", "application/csv"]);

/** A deck upload: text/csv (or text/plain), at most 5 MiB (413), parsed (422 naming the line). */
async function readDeckBody(request: Request) {
  const mediaType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!CSV_TYPES.has(mediaType)) {
    throw new ApiError("invalid_request_body", "Send the rate deck as the request body with Content-Type text/csv.", [
      { param: "(body)", message: `Content-Type must be text/csv, not ${JSON.stringify(mediaType.slice(0, 100))}` },
    ]);
  }
  return parseDeckCsv(await readBodyText(request));
}

/** POST /v1/{accounts,suppliers}/{id}/rate-decks: 200 with the diff on a dry run, else 201 with the deck. */
export async function deckUploadResponse(
  db: Db,
  principal: Principal,
  request: Request,
  side: CardSide,
  ownerId: string,
  query: DeckUploadQuery,
): Promise<Response> {
  const reach = reachOf(principal);
  // A sell deck: the platform any account's, a reseller its customers' (not its own: its parent prices it); a buy
  // deck: the platform's alone.
  if (side === "sell") requireProvisioningOf(reach, ownerId, "re-price");
  else requirePlatform(reach, "rating");
  const by = { actor: auditActorOf(principal), address: clientAddress(request.headers) };
  const rows = await readDeckBody(request);
  const outcome = await uploadDeck(db, side, ownerId, rows, {
    effectiveFrom: query.effectiveFrom === undefined ? undefined : new Date(query.effectiveFrom),
    dryRun: query.dryRun,
    minMarginBps: marginBasisPoints(query.minMargin),
    // The suppliers' decks are the operator's costs: a reseller's dry run compares with its own deck only.
    supplierWarnings: isPlatform(reach),
    allowBelowCost: query.allowBelowCost,
    by,
  });
  const body = deckUploadJson(outcome);
  return outcome.dryRun ? json(body) : json(body, 201, { location: `/v1/rate-decks/${outcome.result.deckId}` });
}
