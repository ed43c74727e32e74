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
