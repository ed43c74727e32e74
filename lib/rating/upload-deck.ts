import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { diffDeck, parentCostsOf, type DeckDiff, type ParentCosts, type RateTerms } from "./deck-diff";
import type { CardSide } from "./find-rate";
import {
  importBuyRates,
  importSellRates,
  ownerHasDeck,
  RateCardOwnerNotFoundError,
  RateDeckExistsError,
  type RateImportResult,
} from "./import-rates";
import { FIRST_DECK_FROM_MS } from "./deck-review";
import { parseRateCsv, RateCsvError } from "./rate-csv";
import type { DeckDiffJson, DeckImportJson, RateRow, RateTermsJson } from "./schemas";

/**
 * One deck upload, the same for /v1 (sell and buy decks), the console and the admin CLI (`rates import`,
 * `suppliers rates import`): a dry run answers the diff against the deck in force at effectiveFrom and the margin
 * guard and writes nothing; otherwise the deck is added (history stays) with its audit event `rate_deck.imported`.
 */
export interface DeckUploadOptions {
  effectiveFrom?: Date;
  dryRun?: boolean;
  /** Dry run: also warn under this margin, in basis points. */
  minMarginBps?: number;
  /** Dry run: compare with the suppliers' decks (the operator's costs); false for a reseller (DiffOptions). */
  supplierWarnings?: boolean;
  /**
   * Import a child account's deck even where a rate is below its parent's own (the margin guard: refused with 422
   * `below_cost` naming the prefixes otherwise).
   */
  allowBelowCost?: boolean;
  by: ChangeContext;
  progress?: (done: number, total: number) => void;
}

export type DeckUploadOutcome =
  { dryRun: true; diff: DeckDiff } | { dryRun: false; side: CardSide; result: RateImportResult };

/** A deck's CSV text as rows, or 422 `invalid_request_body` naming the line (and the field, in its message). */
export function parseDeckCsv(text: string): RateRow[] {
  try {
    return parseRateCsv(text);
  } catch (e) {
    if (e instanceof RateCsvError) {
      throw new ApiError("invalid_request_body", `The rate deck is invalid at ${e.message}; nothing was imported.`, [
        { param: `line ${e.line}`, message: e.message.replace(/^line \d+: /, "") },
      ]);
    }
    throw e;
  }
}

const OWNER = { sell: "billing group", buy: "supplier" } as const;

export async function uploadDeck(
  db: Db,
  side: CardSide,
  ownerId: string,
  rows: RateRow[],
  options: DeckUploadOptions,
): Promise<DeckUploadOutcome> {
  try {
    if (options.dryRun) {
      const diff = await diffDeck(db, side, ownerId, rows, options.effectiveFrom, {
        minMarginBps: options.minMarginBps,
        supplierWarnings: options.supplierWarnings,
      });
      return { dryRun: true, diff };
    }
    if (side === "sell" && !options.allowBelowCost) {
      // The margin guard: the parent's deck in force when this one starts (the import's own default instant).
      const at = options.effectiveFrom ?? (await defaultEffectiveFrom(db, ownerId));
      const costs = await parentCostsOf(db, ownerId, rows, at.getTime());
      if (costs && costs.belowCost > 0) throw belowCost(costs);
    }
    const importOptions = { effectiveFrom: options.effectiveFrom, by: options.by };
    const result =
      side === "sell"
        ? await importSellRates(db, ownerId, rows, options.progress, importOptions)
        : await importBuyRates(db, ownerId, rows, options.progress, importOptions);
    return { dryRun: false, side, result };
  } catch (e) {
    if (e instanceof RateCardOwnerNotFoundError) {
      throw new ApiError("not_found", `No ${OWNER[side]} with id ${JSON.stringify(ownerId.slice(0, 64))}.`);
    }
    if (e instanceof RateDeckExistsError) {
      throw new ApiError("conflict", `${e.message}.`, [
        { param: "effectiveFrom", message: "another deck of this owner takes effect at that instant" },
      ]);
    }
    if (e instanceof RangeError) {
      throw new ApiError("invalid_request_body", e.message, [{ param: "(body)", message: e.message }]);
    }
    throw e;
  }
}

/** Where an owner's next deck starts when no instant is given: now, or the epoch for its first (as the import). */
async function defaultEffectiveFrom(db: Db, ownerId: string): Promise<Date> {
  return (await ownerHasDeck(db, "sell", ownerId)) ? new Date() : new Date(FIRST_DECK_FROM_MS);
}

/** 422 `below_cost`: rates under the parent's own, each prefix named (the first 100). */
function belowCost(costs: ParentCosts): ApiError {
  const below = costs.rates.filter((r) => r.status === "below_cost");
  return new ApiError(
    "below_cost",
    `${costs.belowCost} rate(s) are below what ${costs.accountId} pays for them (its own deck); nothing was imported. ` +
      "Raise them, or send allowBelowCost=true to import at a loss.",
    below.slice(0, 100).map((r) => ({
      param: `prefix ${r.prefix}`,
      message: `sell ${r.sellRate} below the buy rate ${r.buyRate} (prefix ${r.buyPrefix})`,
    })),
  );
}

const money = (text: string | null) => (text === null ? null : Number(text));

function termsJson(t: RateTerms): RateTermsJson {
  return {
    rate: Number(t.rate),
    increment: t.increment,
    connectFee: money(t.connectFee),
    minCharge: money(t.minCharge),
    description: t.description,
  };
}

/** The outcome as /v1 answers it: amounts as JSON numbers (at most 6 decimals), ids as text. */
export function deckUploadJson(outcome: DeckUploadOutcome): DeckDiffJson | DeckImportJson {
  if (!outcome.dryRun) {
    const r = outcome.result;
    return {
      dryRun: false,
      deckId: String(r.deckId),
      side: outcome.side,
      ownerId: r.ownerId,
      effectiveFrom: r.effectiveFrom.toISOString(),
      imported: r.imported,
    };
  }
  const d = outcome.diff;
  return {
    dryRun: true,
    side: d.side,
    ownerId: d.ownerId,
    effectiveFrom: d.effectiveFrom,
    comparedWith: d.comparedWith && {
      deckId: String(d.comparedWith.deckId),
      effectiveFrom: d.comparedWith.effectiveFrom,
    },
    prefixes: d.prefixes,
    added: d.added.map(({ prefix, ...t }) => ({ prefix, ...termsJson(t) })),
    removed: d.removed.map(({ prefix, ...t }) => ({ prefix, ...termsJson(t) })),
    changed: d.changed.map((c) => ({ prefix: c.prefix, old: termsJson(c.old), new: termsJson(c.new) })),
    unchanged: d.unchanged,
    marginWarnings: d.marginWarnings.map((w) => ({
      ...w,
      sellRate: Number(w.sellRate),
      buyRate: Number(w.buyRate),
      marginPercent: w.marginPercent === null ? null : Number(w.marginPercent),
    })),
    marginWarningCount: d.marginWarningCount,
    parentCosts: d.parentCosts && {
      ...d.parentCosts,
      deckId: d.parentCosts.deckId === null ? null : String(d.parentCosts.deckId),
      rates: d.parentCosts.rates.map((r) => ({
        ...r,
        sellRate: Number(r.sellRate),
        buyRate: r.buyRate === null ? null : Number(r.buyRate),
        marginPercent: r.marginPercent === null ? null : Number(r.marginPercent),
      })),
    },
  };
}
