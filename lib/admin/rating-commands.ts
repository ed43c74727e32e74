import fs from "node:fs/promises";
import { diffDeck } from "@/lib/rating/deck-diff";
import type { CardSide } from "@/lib/rating/find-rate";
import {
  importBuyRates,
  importSellRates,
  RateCardOwnerNotFoundError,
  RateDeckExistsError,
  type RateImportOptions,
} from "@/lib/rating/import-rates";
import { parseRateCsv, RateCsvError } from "@/lib/rating/rate-csv";
import type { RateRow } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import type { Db } from "@/lib/db/client";
import type { ProgressReporter } from "@/lib/runtime/progress";
import { instantFlag, requireFlag, UsageError, type AdminCommand } from "./command";

async function readDeck(file: string): Promise<RateRow[]> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (e) {
    throw new UsageError(`--file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return parseRateCsv(text);
  } catch (e) {
    if (e instanceof RateCsvError) throw new UsageError(`${file}: ${e.message}; nothing was imported`);
    throw e;
  }
}

async function runImport(
  db: Db,
  side: CardSide,
  ownerId: string,
  flags: Record<string, string | boolean | undefined>,
  usage: string,
  progress: ProgressReporter,
) {
  const started = performance.now();
  const file = requireFlag(flags, "file", usage);
  const effectiveFrom = instantFlag(flags, "effective-from", usage);
  const rows = await readDeck(file);
  try {
    // Dry run: the diff against the card in force when the deck would start, and the margin guard; nothing written.
    if (flags["dry-run"] === true)
      return { dryRun: true, file, ...(await diffDeck(db, side, ownerId, rows, effectiveFrom)) };
    const options: RateImportOptions = { effectiveFrom };
    const report = (done: number, total: number) => progress({ phase: "importing rates", done, total });
    const result =
      side === "sell"
        ? await importSellRates(db, ownerId, rows, report, options)
        : await importBuyRates(db, ownerId, rows, report, options);
    return {
      [side === "sell" ? "billingGroupId" : "supplierId"]: result.ownerId,
      deckId: result.deckId,
      effectiveFrom: result.effectiveFrom.toISOString(),
      imported: result.imported,
      rateCardVersion: result.rateCardVersion,
      file,
      seconds: Math.round((performance.now() - started) / 10) / 100,
    };
  } catch (e) {
    if (e instanceof RateCardOwnerNotFoundError || e instanceof RateDeckExistsError) throw new UsageError(e.message);
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
}

const COLUMNS_HELP = "header prefix,rate,increment[,description][,connectFee][,minCharge]";
const ratesUsage = `rates import --group ID --file rates.csv [--effective-from ISO] [--dry-run]  (${COLUMNS_HELP}; adds a dated deck, history stays; --dry-run prints the diff and margin warnings, writes nothing)`;
const supplierUsage = "suppliers create --name N [--gateway G]";
const buyUsage =
  "suppliers rates import --supplier ID --file buy.csv [--effective-from ISO] [--dry-run]  (same columns and rules)";
const importOptions = {
  file: { type: "string" },
  "effective-from": { type: "string" },
  "dry-run": { type: "boolean" },
} as const;

export const ratingCommands: AdminCommand[] = [
  {
    name: "rates import",
    usage: ratesUsage,
    options: { group: { type: "string" }, ...importOptions },
    async run(db, flags, progress) {
      return runImport(db, "sell", requireFlag(flags, "group", ratesUsage), flags, ratesUsage, progress);
    },
  },
  {
    name: "suppliers create",
    usage: supplierUsage,
    options: { name: { type: "string" }, gateway: { type: "string" } },
    async run(db, flags) {
      const name = requireFlag(flags, "name", supplierUsage);
      const gateway = typeof flags.gateway === "string" ? flags.gateway.trim() || null : null;
      try {
        const s = await createSupplier(db, { name, gatewayName: gateway });
        return { id: s.id, name: s.name, gatewayName: s.gatewayName };
      } catch (e) {
        if (gateway && /suppliers_gateway_name_key|unique/i.test(String((e as { cause?: unknown }).cause ?? e))) {
          throw new UsageError(`--gateway: another supplier already maps the gateway "${gateway}"`);
        }
        throw e;
      }
    },
  },
  {
    name: "suppliers rates import",
    usage: buyUsage,
    options: { supplier: { type: "string" }, ...importOptions },
    async run(db, flags, progress) {
      return runImport(db, "buy", requireFlag(flags, "supplier", buyUsage), flags, buyUsage, progress);
    },
  },
];
