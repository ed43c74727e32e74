import fs from "node:fs/promises";
import { CLI_ACTOR } from "@/lib/audit/actor";
import type { ChangeContext } from "@/lib/billing/change-context";
import { ApiError } from "@/lib/errors/api-error";
import type { CardSide } from "@/lib/rating/find-rate";
import { parseRateCsv, RateCsvError } from "@/lib/rating/rate-csv";
import type { RateRow } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { uploadDeck } from "@/lib/rating/upload-deck";
import type { Db } from "@/lib/db/client";
import type { ProgressReporter } from "@/lib/runtime/progress";
import { instantFlag, requireFlag, UsageError, type AdminCommand } from "./command";

// The CLI's deck imports and supplier creation call the domain functions /v1 calls (lib/rating/upload-deck.ts,
// suppliers.ts), with the CLI as the audit actor.
const BY_CLI: ChangeContext = { actor: CLI_ACTOR, address: null };

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
    const outcome = await uploadDeck(db, side, ownerId, rows, {
      effectiveFrom,
      dryRun: flags["dry-run"] === true,
      allowBelowCost: flags["allow-below-cost"] === true,
      by: BY_CLI,
      progress: (done, total) => progress({ phase: "importing rates", done, total }),
    });
    if (outcome.dryRun) return { dryRun: true, file, ...outcome.diff };
    const result = outcome.result;
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
    if (e instanceof ApiError) throw new UsageError(e.detail);
    throw e;
  }
}

const COLUMNS_HELP = "header prefix,rate,increment[,description][,connectFee][,minCharge]";
const ratesUsage = `rates import --group ID --file rates.csv [--effective-from ISO] [--dry-run] [--allow-below-cost]  (${COLUMNS_HELP}; adds a dated deck, history stays; --dry-run prints the diff and margin warnings, writes nothing; a child account's rates below its parent's own are refused without --allow-below-cost)`;
const supplierUsage = "suppliers create --name N [--gateway G]";
const buyUsage =
  "suppliers rates import --supplier ID --file buy.csv [--effective-from ISO] [--dry-run]  (same columns and rules)";
const importOptions = {
  file: { type: "string" },
  "effective-from": { type: "string" },
  "dry-run": { type: "boolean" },
  "allow-below-cost": { type: "boolean" },
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
        const s = await createSupplier(db, { name, gatewayName: gateway }, BY_CLI);
        return { id: s.id, name: s.name, gatewayName: s.gatewayName };
      } catch (e) {
        if (e instanceof ApiError && e.code === "conflict") {
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
