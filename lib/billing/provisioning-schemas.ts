import { z } from "zod";
import { storable, storableText } from "@/lib/db/storable-text";
import { decimalMoney } from "@/lib/money/decimal-money";
import { idSchema } from "@/lib/ids/ids";
import { accountSchema } from "./schemas";
import { isAccountCurrency } from "@/lib/money/iso-4217";

// Bodies and answers of the provisioning operations (POST/PATCH /v1/accounts, top-ups, adjustments). Money comes in as
// decimal strings, exact, and becomes bigint micro-units here (docs/contract.md §1); it goes out as JSON numbers with at
// most 6 decimals, as every amount of /v1 does.

const money = (description: string) => decimalMoney().describe(description);

const creditLimit = money("How far below zero the balance may go before the account is disabled (>= 0)").refine(
  (micros) => micros >= 0n,
  "must not be negative",
);
const accountcode = storable(z.string().trim().min(1).max(64))
  .nullable()
  .describe("The switch's accountcode that routes CDRs to this account (unique); null removes it");

/** A new account's currency: a current ISO 4217 code (lib/money/iso-4217.ts), fixed for the account's life. */
export const accountCurrencySchema = z
  .string()
  // Not three capitals: one issue, this one (abort), not a second from the list below.
  .regex(/^[A-Z]{3}$/, { message: "currency must be a 3-letter ISO 4217 code, e.g. USD", abort: true })
  .refine(isAccountCurrency, "currency must be a current ISO 4217 currency (not a fund, test or withdrawn code)");

export const createAccountBodySchema = z
  .strictObject({
    name: storableText(200).describe("Display name"),
    currency: accountCurrencySchema
      .optional()
      .describe(
        "ISO 4217 code of a current currency, e.g. USD; fixed for the account's life. Required for a root account; " +
          "a child account is in its parent's currency (omitted: the parent's; another: 422 `currency_mismatch`)",
      ),
    creditLimit: creditLimit.optional(),
    accountcode: accountcode.optional(),
    openingBalance: money("Opening balance (a ledger entry of kind `opening`)").optional(),
    parentId: idSchema("bg", "Billing group id")
      .optional()
      .describe(
        "The account this one buys from (a reseller); absent: a root account, buying from the operator (a " +
          "reseller's caller: its own account). Fixed for the account's life; an unknown one answers 422 `unknown_parent`",
      ),
  })
  // A root account names its currency: checked by createAccountAs, where a reseller's absent parentId is its own.
  .meta({ id: "CreateAccountRequest", description: "A new billing group (account)" });

export const updateAccountBodySchema = z
  .strictObject({
    name: storableText(200).optional().describe("Display name"),
    creditLimit: creditLimit.optional(),
    accountcode: accountcode.optional(),
    disabled: z
      .boolean()
      .optional()
      .describe("true: disabled by the operator whatever the balance; false: enabled again (unless over its limit)"),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "name at least one field to change" })
  .meta({ id: "UpdateAccountRequest", description: "The fields to change; absent fields stay as they are" });

export const topUpBodySchema = z
  .strictObject({
    amount: money("Amount added to the balance").refine((micros) => micros > 0n, "must be positive"),
    description: storableText(200).optional().describe('Shown in the ledger (default "Top-up")'),
  })
  .meta({ id: "TopUpRequest", description: "Money added to an account's balance" });

export const adjustmentBodySchema = z
  .strictObject({
    amount: money("Signed: positive credits the balance, negative debits it").refine(
      (micros) => micros !== 0n,
      "must not be zero",
    ),
    description: storableText(200).describe("Why: shown in the ledger and the audit log"),
  })
  .meta({ id: "AdjustmentRequest", description: "A correction of an account's balance, either way" });

export type CreateAccountBody = z.output<typeof createAccountBodySchema>;
export type UpdateAccountBody = z.output<typeof updateAccountBodySchema>;
export type TopUpBody = z.output<typeof topUpBodySchema>;
export type AdjustmentBody = z.output<typeof adjustmentBodySchema>;

export const accountDetailSchema = accountSchema
  .extend({
    creditLimit: z.number().describe("How far below zero the balance may go (at most 6 decimals)"),
    accountcode: z.string().nullable().describe("The switch's accountcode routed to this account"),
    disabledByOperator: z.boolean().describe("Disabled by an operator (PATCH `disabled`)"),
    createdAt: z.string().describe("ISO 8601"),
  })
  .meta({ id: "AccountDetail", description: "A billing group as its operator sees it" });

export const balanceMovementSchema = z
  .object({
    id: z.string().describe("Ledger entry id"),
    kind: z.enum(["topup", "adjustment"]),
    amount: z.number().describe("Signed amount (at most 6 decimals)"),
    description: z.string(),
    createdAt: z.string().describe("ISO 8601"),
    account: accountDetailSchema.describe("The account after the movement"),
    fundedBy: z
      .object({
        accountId: z.string().describe("The reseller whose own balance paid it"),
        ledgerEntryId: z.string().describe("Its ledger entry (kind `adjustment`, the amount negated)"),
        balance: z.number().describe("Its balance after the movement"),
      })
      .optional()
      .describe('Present when a reseller moved the money from its own balance (docs/contract.md "Reseller tiers")'),
  })
  .meta({ id: "BalanceMovement", description: "A top-up or adjustment as written to the ledger" });

export type AccountDetail = z.infer<typeof accountDetailSchema>;
export type BalanceMovement = z.infer<typeof balanceMovementSchema>;
