import { z } from "zod";

/** Balance (spec 2.3) and Account (CONTRACT 2): the billing groups a key may see. */
export const balanceSchema = z
  .object({
    billingGroupId: z.string().describe("Billing group of the key"),
    balance: z.number().describe("Current balance (at most 6 decimals)"),
    currency: z.string().describe("ISO 4217 currency code"),
    disabled: z.boolean().describe("Disabled by an operator, or balance at or below -creditLimit"),
  })
  .meta({ id: "Balance" });

export const accountSchema = z
  .object({
    id: z.string().describe("Billing group id"),
    name: z.string(),
    balance: z.number().describe("Current balance (at most 6 decimals)"),
    currency: z.string().describe("ISO 4217 currency code"),
    disabled: z.boolean().describe("Disabled by an operator, or balance at or below -creditLimit"),
  })
  .meta({ id: "Account", description: "A billing group the key may see" });

export const accountListSchema = z
  .object({ accounts: z.array(accountSchema).describe("Platform key: every group; bound key: its own") })
  .meta({ id: "AccountList" });

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
    sellRate: z.number().describe("Sell rate per minute (at most 6 decimals)"),
    billingIncrement: z.string().describe("`minimum/interval` in seconds: `1/1` per second, `60/60` per minute"),
    connectFee: z
      .number()
      .nullable()
      .describe("Charged once per answered call on top of the per-minute part (at most 6 decimals); null when the rate has none"),
    minCharge: z
      .number()
      .nullable()
      .describe("The least an answered call costs, connect fee included (at most 6 decimals); null when the rate has none"),
    effectiveFrom: z.iso.datetime().describe("When the rate deck in force now took effect (ISO 8601, UTC)"),
    currency: z.string().describe("ISO 4217 currency code"),
  })
  .meta({ id: "Rate" });

export type Balance = z.infer<typeof balanceSchema>;
export type Account = z.infer<typeof accountSchema>;
export type AccountList = z.infer<typeof accountListSchema>;
export type Rate = z.infer<typeof rateSchema>;
