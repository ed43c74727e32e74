import fs from "node:fs/promises";
import { importBuyRates, importSellRates, RateCardOwnerNotFoundError, type RateImportResult } from "@/lib/rating/import-rates";
import { parseRateCsv, RateCsvError } from "@/lib/rating/rate-csv";
import type { RateRow } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { requireFlag, UsageError, type AdminCommand, type ProgressReporter } from "./command";

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
  importer: (rows: RateRow[], progress: (done: number, total: number) => void) => Promise<RateImportResult>,
  file: string,
  progress: ProgressReporter,
) {
  const started = performance.now();
  const rows = await readDeck(file);
  try {
    const result = await importer(rows, (done, total) => progress({ phase: "importing rates", done, total }));
    return { ...result, file, seconds: Math.round((performance.now() - started) / 10) / 100 };
  } catch (e) {
    if (e instanceof RateCardOwnerNotFoundError) throw new UsageError(e.message);
    throw e;
  }
}

const ratesUsage = "rates import --group ID --file rates.csv          (header prefix,rate,increment[,description]; replaces the card)";
const supplierUsage = "suppliers create --name N [--gateway G]";
const buyUsage = "suppliers rates import --supplier ID --file buy.csv (same columns; replaces the supplier's card)";

export const ratingCommands: AdminCommand[] = [
  {
    name: "rates import",
    usage: ratesUsage,
    options: { group: { type: "string" }, file: { type: "string" } },
    async run(db, flags, progress) {
      const group = requireFlag(flags, "group", ratesUsage);
      const file = requireFlag(flags, "file", ratesUsage);
      const result = await runImport((rows, p) => importSellRates(db, group, rows, p), file, progress);
      return { billingGroupId: result.ownerId, imported: result.imported, rateCardVersion: result.rateCardVersion, file, seconds: result.seconds };
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
    options: { supplier: { type: "string" }, file: { type: "string" } },
    async run(db, flags, progress) {
      const supplier = requireFlag(flags, "supplier", buyUsage);
      const file = requireFlag(flags, "file", buyUsage);
      const result = await runImport((rows, p) => importBuyRates(db, supplier, rows, p), file, progress);
      return { supplierId: result.ownerId, imported: result.imported, rateCardVersion: result.rateCardVersion, file, seconds: result.seconds };
    },
  },
];
