import { z } from "zod";

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, "currency must be a 3-letter ISO 4217 code, e.g. USD");

/** A decimal amount given by an operator ("25", "-3.5", "0.000001"): at most 6 decimals. */
export const amountTextSchema = z
  .string()
  .regex(/^-?\d+(\.\d{1,6})?$/, "amount must be a decimal number with at most 6 decimals");

/** Balance (spec 2.3) and Account (docs/contract.md §2): the billing groups a key may see. */
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
    parentId: z
      .string()
      .nullable()
      .describe(
        "The account this one buys from; null: a root account (the operator's), or a parent outside the caller's reach",
      ),
  })
  .meta({ id: "Account", description: "A billing group the key may see" });

export const accountListSchema = z
  .object({
    accounts: z.array(accountSchema).describe("Platform key: every group; bound key: its own and its subtree's"),
  })
  .meta({ id: "AccountList" });

export type Balance = z.infer<typeof balanceSchema>;
export type Account = z.infer<typeof accountSchema>;
export type AccountList = z.infer<typeof accountListSchema>;
