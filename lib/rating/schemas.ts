import { z } from "zod";

/** Billing increment `minimum/interval` in seconds: `1/1` per second, `60/60` per minute, `30/6`. */
export interface Increment {
  min: number;
  interval: number;
}

export const incrementTextSchema = z
  .string()
  .trim()
  .regex(/^\d{1,5}\/\d{1,5}$/, "increment must look like minimum/interval, e.g. 60/60")
  .transform((text, ctx): Increment => {
    const [min, interval] = text.split("/").map(Number);
    if (interval < 1) {
      ctx.addIssue({ code: "custom", message: "the interval of an increment must be at least 1 second" });
      return z.NEVER;
    }
    return { min, interval };
  });

export function formatIncrement(inc: Increment): string {
  return `${inc.min}/${inc.interval}`;
}

const decimalMoney = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+(\.\d{1,6})?$/, `${name} must be a non-negative decimal with at most 6 decimals`);

/**
 * One line of a rate deck: `prefix,rate,increment[,description][,connectFee][,minCharge]`, rate per
 * minute, fees per call, each with <= 6 decimals. A fee left out (or blank) is none.
 */
export const rateRowSchema = z.object({
  prefix: z
    .string()
    .trim()
    .regex(/^\d{1,20}$/, "prefix must be 1-20 digits"),
  rate: decimalMoney("rate"),
  increment: incrementTextSchema,
  description: z.string().trim().max(200).optional(),
  connectFee: decimalMoney("connectFee").optional(),
  minCharge: decimalMoney("minCharge").optional(),
});
export type RateRow = z.output<typeof rateRowSchema>;

/** GET /v1/rates: the query and the answer (the sell rate of the key's group in the deck in force now). */
export const rateQuerySchema = z.object({
  destination: z
    .string({ error: "is required: the dialled number, digits with an optional leading +" })
    .regex(/^\+?\d{1,32}$/, "must be 1-32 digits with an optional leading +")
    .describe("Dialled number: digits, optional leading `+` (ignored for matching)"),
});

export const rateSchema = z
  .object({
    destination: z.string().describe("The destination as queried, echoed back"),
    matchedPrefix: z.string().describe("Longest prefix of the destination found in the rate card"),
    description: z
      .string()
      .nullable()
      .describe("The rate card's description of the matched prefix (e.g. `Philippines fixed`); null when it has none"),
    sellRate: z.number().describe("Sell rate per minute (at most 6 decimals)"),
    billingIncrement: z.string().describe("`minimum/interval` in seconds: `1/1` per second, `60/60` per minute"),
    connectFee: z
      .number()
      .nullable()
      .describe(
        "Charged once per answered call on top of the per-minute part (at most 6 decimals); null when the rate has none",
      ),
    minCharge: z
      .number()
      .nullable()
      .describe(
        "The least an answered call costs, connect fee included (at most 6 decimals); null when the rate has none",
      ),
    effectiveFrom: z.iso.datetime().describe("When the rate deck in force now took effect (ISO 8601, UTC)"),
    currency: z.string().describe("ISO 4217 currency code"),
  })
  .meta({ id: "Rate" });

export type Rate = z.infer<typeof rateSchema>;

// ---- rate decks and suppliers over /v1 (platform only; docs/contract.md §17) ----

const isoInstant = z.iso.datetime({ offset: true });

/** `effectiveFrom` of an upload: an ISO timestamp with offset, from 1970 on (the calls ingest accepts). */
export const deckUploadQuerySchema = z.object({
  effectiveFrom: z
    .string()
    .refine((text) => {
      if (!isoInstant.safeParse(text).success) return false;
      const ms = Date.parse(text);
      return ms >= 0 && ms <= Date.UTC(9999, 11, 31);
    }, "must be an ISO 8601 timestamp with offset (2026-01-31T12:00:00Z) from 1970-01-01 to 9999-12-31")
    .optional()
    .describe(
      "When the deck takes effect (ISO 8601 with offset). Default: now, or 1970-01-01 for the owner's first deck",
    ),
  dryRun: z
    .enum(["true", "false"], { error: "must be true or false" })
    .optional()
    .transform((v) => v === "true")
    .describe("true: answer the diff and margin warnings, write nothing"),
  minMargin: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,2})?$/, "must be a percentage such as 10 or 12.5 (at most 2 decimals)")
    .optional()
    .describe("Dry run: also warn where (sell - buy) / sell is under this percentage (default: only sell < buy)"),
  allowBelowCost: z
    .enum(["true", "false"], { error: "must be true or false" })
    .optional()
    .transform((v) => v === "true")
    .describe(
      "A child account's sell deck: import it even where a rate is below its parent's own (otherwise 422 `below_cost` " +
        "naming the prefixes)",
    ),
});
export type DeckUploadQuery = z.output<typeof deckUploadQuerySchema>;

/** Minimum margin text (percent, <= 2 decimals) as basis points. */
export function marginBasisPoints(text: string | undefined): number {
  if (!text) return 0;
  const [whole, fraction = ""] = text.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

export const rateTermsSchema = z.object({
  rate: z.number().describe("Per minute (at most 6 decimals)"),
  increment: z.string().describe("`minimum/interval` in seconds"),
  connectFee: z.number().nullable(),
  minCharge: z.number().nullable(),
  description: z.string().nullable(),
});
export type RateTermsJson = z.infer<typeof rateTermsSchema>;

export const deckDiffSchema = z
  .object({
    dryRun: z.literal(true),
    side: z.enum(["sell", "buy"]),
    ownerId: z.string().describe("Billing group (sell deck) or supplier (buy deck)"),
    effectiveFrom: z.string().describe("ISO 8601: when the deck would take effect"),
    comparedWith: z
      .object({ deckId: z.string(), effectiveFrom: z.string() })
      .nullable()
      .describe("The deck in force at effectiveFrom that the new one would follow; null: none"),
    prefixes: z.number().int().describe("Rates in the uploaded deck"),
    added: z.array(rateTermsSchema.extend({ prefix: z.string() })),
    removed: z.array(rateTermsSchema.extend({ prefix: z.string() })),
    changed: z.array(z.object({ prefix: z.string(), old: rateTermsSchema, new: rateTermsSchema })),
    unchanged: z.number().int(),
    marginWarnings: z
      .array(
        z.object({
          prefix: z.string().describe("The sell prefix"),
          billingGroupId: z.string(),
          sellRate: z.number(),
          supplierId: z.string(),
          buyPrefix: z.string().describe("The supplier's longest prefix matching the sell prefix"),
          buyRate: z.number(),
          marginPercent: z.number().nullable().describe("(sell - buy) / sell in percent; null when sell is 0"),
          reason: z.enum(["below_cost", "low_margin"]),
        }),
      )
      .describe("At most 1000; marginWarningCount says how many there are"),
    marginWarningCount: z.number().int(),
    parentCosts: z
      .object({
        accountId: z.string().describe("The parent account: the reseller whose margin this is"),
        deckId: z.string().nullable().describe("Its deck in force at effectiveFrom; null: none"),
        belowCost: z.number().int().describe("Rates below the parent's (an import answers 422 `below_cost`)"),
        lowMargin: z.number().int().describe("Rates under `minMargin` over the parent's"),
        unpriced: z.number().int().describe("Prefixes the parent's deck does not price"),
        rates: z
          .array(
            z.object({
              prefix: z.string(),
              sellRate: z.number(),
              buyPrefix: z.string().nullable().describe("The parent deck's longest prefix matching; null: none"),
              buyRate: z.number().nullable().describe("What the parent pays per minute; null: unpriced"),
              marginPercent: z.number().nullable(),
              status: z.enum(["below_cost", "low_margin", "unpriced", "ok"]),
            }),
          )
          .describe("Every rate of the deck (at most 1000): below cost first, then unpriced, low margin, ok"),
      })
      .nullable()
      .describe("A child account's sell deck against its parent's own deck (the margin guard); null otherwise"),
  })
  .meta({ id: "RateDeckDiff", description: "What an upload would change, and the margin guard; nothing written" });
export type DeckDiffJson = z.infer<typeof deckDiffSchema>;

export const deckImportSchema = z
  .object({
    dryRun: z.literal(false),
    deckId: z.string().describe("The new deck's id (download: GET /v1/rate-decks/{id})"),
    side: z.enum(["sell", "buy"]),
    ownerId: z.string(),
    effectiveFrom: z.string().describe("ISO 8601"),
    imported: z.number().int().describe("Rates imported"),
  })
  .meta({ id: "RateDeckImport", description: "A deck imported" });
export type DeckImportJson = z.infer<typeof deckImportSchema>;

export const deckSummarySchema = z
  .object({
    id: z.string().describe("Deck id"),
    effectiveFrom: z.string().describe("ISO 8601"),
    importedAt: z.string().describe("ISO 8601"),
    importedBy: z
      .object({ type: z.string(), id: z.string().nullable(), label: z.string().nullable() })
      .nullable()
      .describe("Who imported it (the audit actor); null for decks seeded or imported before this was kept"),
    rates: z.number().int().describe("Rates in the deck"),
    status: z
      .enum(["scheduled", "in_force", "superseded"])
      .describe("scheduled: takes effect later; in_force: rates calls starting now; superseded: history"),
  })
  .meta({ id: "RateDeck" });
export type DeckSummary = z.infer<typeof deckSummarySchema>;

export const deckListQuerySchema = z.object({
  pageSize: z
    .string()
    .regex(/^\d{1,3}$/, "must be an integer between 1 and 100")
    .pipe(
      z.coerce
        .number<string>()
        .int()
        .min(1, "must be an integer between 1 and 100")
        .max(100, "must be an integer between 1 and 100"),
    )
    .optional()
    .default(50)
    .describe("Decks per page, 1..100"),
  cursor: z.string().max(512).optional().describe("From nextPageUrl"),
});
export type DeckListQuery = z.output<typeof deckListQuerySchema>;

export const deckPageSchema = z
  .object({
    decks: z.array(deckSummarySchema).describe("Newest effective-from first"),
    nextPageUrl: z.string().nullable(),
    meta: z.object({ pageSize: z.number().int(), hasMore: z.boolean() }),
  })
  .meta({ id: "RateDeckPage" });
export type DeckPage = z.infer<typeof deckPageSchema>;

export const supplierSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    gatewayName: z.string().nullable().describe("The switch's gateway name (FreeSWITCH sip_gateway_name); unique"),
    createdAt: z.string().describe("ISO 8601"),
  })
  .meta({ id: "Supplier" });
export type SupplierJson = z.infer<typeof supplierSchema>;

const supplierName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");
const gatewayName = z
  .string()
  .trim()
  .max(200, "must be at most 200 characters")
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
  .nullable()
  .transform((v) => v || null);

export const createSupplierBodySchema = z
  .strictObject({ name: supplierName.describe("Display name"), gatewayName: gatewayName.optional() })
  .meta({ id: "CreateSupplierRequest" });
export const updateSupplierBodySchema = z
  .strictObject({ name: supplierName.optional(), gatewayName: gatewayName.optional() })
  .refine((body) => Object.keys(body).length > 0, { message: "name at least one field to change" })
  .meta({ id: "UpdateSupplierRequest", description: "Absent fields stay; gatewayName null removes it" });
export const supplierListSchema = z.object({ suppliers: z.array(supplierSchema) }).meta({ id: "SupplierList" });
